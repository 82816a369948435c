-- Sales outreach kept per account (issue 43, the product owner's "outreach kept per account beside the
-- ads' rollups"; docs/reports.md "Outreach per account"; reports/accounts.ts). `alignment` tied the CRM
-- contacts with outreach in the range to their accounts at every call (34,500 contacts over 90 days
-- at the reports bench's size, three probes each: about 350 ms). This table holds each outreach
-- activity count (a CRM contact's total and last time of one outreach type, crm_activity_counts) once
-- per account its contact belongs to: the CRM account's company, or its prospect's stored ties
-- (prospect_account_ties, migration 0037). A range is then the rows whose last activity is in it,
-- read from one index: exact for any range.
-- Kept by triggers in the writer's transaction, per contact, on what the rows read: the counts, the
-- contact (account, prospect, deleted flag), the CRM account (company, deleted flag), the prospect's
-- ties and the connection's outreach types. A contact's rows are computed again from the facts.
CREATE TABLE "account_outreach" (
	"client_id" uuid NOT NULL,
	"company_id" uuid NOT NULL,
	"activity_id" uuid NOT NULL,
	"contact_id" uuid NOT NULL,
	"count" integer NOT NULL,
	"last_activity_at" timestamp with time zone NOT NULL,
	CONSTRAINT "account_outreach_pk" PRIMARY KEY("activity_id","company_id")
);
--> statement-breakpoint
-- The range's rows, read from the index alone.
CREATE INDEX "account_outreach_client_last_idx" ON "account_outreach" USING btree ("client_id","last_activity_at") INCLUDE ("company_id","contact_id","count");
--> statement-breakpoint
CREATE INDEX "account_outreach_contact_idx" ON "account_outreach" USING btree ("contact_id");
--> statement-breakpoint
-- The rows of one contact, computed again. A scalar key keeps the cached plan on the indexes (as
-- prospect_ties_refresh_one, migration 0037).
CREATE FUNCTION account_outreach_refresh_one(cid uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM account_outreach WHERE contact_id = cid;
  INSERT INTO account_outreach AS o (client_id, company_id, activity_id, contact_id, count, last_activity_at)
  SELECT DISTINCT ac.client_id, x.company_id, ac.id, ac.contact_id, ac.count, ac.last_activity_at
    FROM crm_activity_counts ac
    JOIN crm_integration_settings s ON s.integration_id = ac.integration_id AND s.client_id = ac.client_id
    JOIN crm_contacts cc ON cc.id = ac.contact_id AND cc.client_id = ac.client_id AND NOT cc.is_deleted
    LEFT JOIN crm_accounts a ON a.id = cc.account_id AND NOT a.is_deleted
    CROSS JOIN LATERAL (
      SELECT a.company_id WHERE a.company_id IS NOT NULL
      UNION ALL
      SELECT pt.company_id FROM prospect_account_ties pt
       WHERE pt.prospect_id = cc.prospect_id AND pt.client_id = ac.client_id
    ) x
   WHERE ac.contact_id = cid AND ac.last_activity_at IS NOT NULL
     AND ac.activity_type IN (SELECT jsonb_array_elements_text(s.outreach_activity_types))
   ORDER BY 3, 2
  ON CONFLICT (activity_id, company_id) DO UPDATE SET client_id = excluded.client_id,
    contact_id = excluded.contact_id, count = excluded.count, last_activity_at = excluded.last_activity_at;
END $$;
--> statement-breakpoint
-- The rows of the given contacts (all when `ids` is null): one by one for a few, in one statement for
-- many. Two transactions that change the same contact's facts at the same moment each compute from
-- what they see, as the stored ties do (docs/reports.md "Stored ties").
CREATE FUNCTION account_outreach_refresh(ids uuid[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  cid uuid;
BEGIN
  IF ids IS NOT NULL AND cardinality(ids) = 0 THEN
    RETURN;
  END IF;
  IF ids IS NOT NULL AND cardinality(ids) <= 20 THEN
    FOREACH cid IN ARRAY ids LOOP
      PERFORM account_outreach_refresh_one(cid);
    END LOOP;
    RETURN;
  END IF;
  IF ids IS NULL THEN
    DELETE FROM account_outreach;
  ELSE
    DELETE FROM account_outreach WHERE contact_id = ANY(ids);
  END IF;
  INSERT INTO account_outreach AS o (client_id, company_id, activity_id, contact_id, count, last_activity_at)
  SELECT DISTINCT ac.client_id, x.company_id, ac.id, ac.contact_id, ac.count, ac.last_activity_at
    FROM crm_activity_counts ac
    JOIN crm_integration_settings s ON s.integration_id = ac.integration_id AND s.client_id = ac.client_id
    JOIN crm_contacts cc ON cc.id = ac.contact_id AND cc.client_id = ac.client_id AND NOT cc.is_deleted
    LEFT JOIN crm_accounts a ON a.id = cc.account_id AND NOT a.is_deleted
    CROSS JOIN LATERAL (
      SELECT a.company_id WHERE a.company_id IS NOT NULL
      UNION ALL
      SELECT pt.company_id FROM prospect_account_ties pt
       WHERE pt.prospect_id = cc.prospect_id AND pt.client_id = ac.client_id
    ) x
   WHERE (ids IS NULL OR ac.contact_id = ANY(ids)) AND ac.contact_id IS NOT NULL
     AND ac.last_activity_at IS NOT NULL
     AND ac.activity_type IN (SELECT jsonb_array_elements_text(s.outreach_activity_types))
   ORDER BY 3, 2
  ON CONFLICT (activity_id, company_id) DO UPDATE SET client_id = excluded.client_id,
    contact_id = excluded.contact_id, count = excluded.count, last_activity_at = excluded.last_activity_at;
END $$;
--> statement-breakpoint
CREATE FUNCTION account_outreach_fill() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM account_outreach_refresh(NULL);
END $$;
--> statement-breakpoint
-- Counts written, changed or deleted (a CRM sync): their contacts, before and after.
CREATE FUNCTION account_outreach_counts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM account_outreach_refresh(ARRAY(SELECT DISTINCT contact_id FROM new_rows WHERE contact_id IS NOT NULL));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM account_outreach_refresh(ARRAY(SELECT DISTINCT contact_id FROM old_rows WHERE contact_id IS NOT NULL));
  ELSE
    -- A sync's upserts rewrite rows that did not change: only the changed ones count.
    PERFORM account_outreach_refresh(ARRAY(
      SELECT x.contact_id FROM old_rows o JOIN new_rows n ON n.id = o.id
       CROSS JOIN LATERAL (VALUES (o.contact_id), (n.contact_id)) x(contact_id)
       WHERE x.contact_id IS NOT NULL
         AND (o.contact_id, o.client_id, o.integration_id, o.activity_type, o.count, o.last_activity_at)
             IS DISTINCT FROM (n.contact_id, n.client_id, n.integration_id, n.activity_type, n.count, n.last_activity_at)
      UNION
      SELECT n.contact_id FROM new_rows n WHERE n.contact_id IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM old_rows o WHERE o.id = n.id)));
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER account_outreach_counts_insert AFTER INSERT ON crm_activity_counts
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION account_outreach_counts_changed();
--> statement-breakpoint
CREATE TRIGGER account_outreach_counts_delete AFTER DELETE ON crm_activity_counts
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION account_outreach_counts_changed();
--> statement-breakpoint
CREATE TRIGGER account_outreach_counts_update AFTER UPDATE ON crm_activity_counts
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION account_outreach_counts_changed();
--> statement-breakpoint
-- A contact moved to another CRM account or prospect, deleted in the CRM or restored, or deleted.
CREATE FUNCTION account_outreach_contact_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM account_outreach_refresh_one(NEW.id);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER account_outreach_contacts_update
  AFTER UPDATE OF prospect_id, account_id, is_deleted, client_id ON crm_contacts FOR EACH ROW
  WHEN ((NEW.prospect_id, NEW.account_id, NEW.is_deleted, NEW.client_id)
        IS DISTINCT FROM (OLD.prospect_id, OLD.account_id, OLD.is_deleted, OLD.client_id))
  EXECUTE FUNCTION account_outreach_contact_changed();
--> statement-breakpoint
CREATE FUNCTION account_outreach_contacts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM account_outreach WHERE contact_id IN (SELECT id FROM old_rows);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER account_outreach_contacts_delete AFTER DELETE ON crm_contacts
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION account_outreach_contacts_deleted();
--> statement-breakpoint
-- A CRM account matched to another company, deleted in the CRM or restored: its contacts. (A deleted
-- account clears its contacts' account_id, which the contacts' trigger sees.)
CREATE FUNCTION account_outreach_account_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM account_outreach_refresh(ARRAY(SELECT id FROM crm_contacts WHERE account_id = NEW.id));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER account_outreach_accounts_update
  AFTER UPDATE OF company_id, is_deleted, client_id ON crm_accounts FOR EACH ROW
  WHEN ((NEW.company_id, NEW.is_deleted, NEW.client_id) IS DISTINCT FROM (OLD.company_id, OLD.is_deleted, OLD.client_id))
  EXECUTE FUNCTION account_outreach_account_changed();
--> statement-breakpoint
-- A prospect's ties written or deleted (by any of the four tables they read): its contacts.
CREATE FUNCTION account_outreach_ties_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A prospect's ties are refreshed by a delete and an insert, often of no row.
  IF NOT EXISTS (SELECT 1 FROM changed) THEN
    RETURN NULL;
  END IF;
  PERFORM account_outreach_refresh(ARRAY(
    SELECT cc.id FROM crm_contacts cc
     WHERE cc.prospect_id IN (SELECT DISTINCT prospect_id FROM changed)
       AND EXISTS (SELECT 1 FROM crm_activity_counts ac WHERE ac.contact_id = cc.id)));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER account_outreach_ties_insert AFTER INSERT ON prospect_account_ties
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION account_outreach_ties_changed();
--> statement-breakpoint
CREATE TRIGGER account_outreach_ties_delete AFTER DELETE ON prospect_account_ties
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION account_outreach_ties_changed();
--> statement-breakpoint
-- The connection's outreach types changed (or its settings made or removed): its contacts with counts.
CREATE FUNCTION account_outreach_settings_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM account_outreach_refresh(ARRAY(
    SELECT DISTINCT ac.contact_id FROM crm_activity_counts ac
     WHERE ac.integration_id IN (OLD.integration_id, NEW.integration_id) AND ac.contact_id IS NOT NULL));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION account_outreach_settings_inserted_or_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  integration int;
BEGIN
  IF TG_OP = 'DELETE' THEN
    integration := OLD.integration_id;
  ELSE
    integration := NEW.integration_id;
  END IF;
  PERFORM account_outreach_refresh(ARRAY(
    SELECT DISTINCT ac.contact_id FROM crm_activity_counts ac
     WHERE ac.integration_id = integration AND ac.contact_id IS NOT NULL));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER account_outreach_settings_update
  AFTER UPDATE OF outreach_activity_types, client_id, integration_id ON crm_integration_settings FOR EACH ROW
  WHEN ((NEW.outreach_activity_types, NEW.client_id, NEW.integration_id)
        IS DISTINCT FROM (OLD.outreach_activity_types, OLD.client_id, OLD.integration_id))
  EXECUTE FUNCTION account_outreach_settings_changed();
--> statement-breakpoint
CREATE TRIGGER account_outreach_settings_insert AFTER INSERT OR DELETE ON crm_integration_settings
  FOR EACH ROW EXECUTE FUNCTION account_outreach_settings_inserted_or_deleted();
--> statement-breakpoint
-- TRUNCATE of what the rows read (tests, a restore): filled again from what is left.
CREATE FUNCTION account_outreach_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM account_outreach_fill();
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER account_outreach_counts_truncate AFTER TRUNCATE ON crm_activity_counts
  FOR EACH STATEMENT EXECUTE FUNCTION account_outreach_truncated();
--> statement-breakpoint
CREATE TRIGGER account_outreach_contacts_truncate AFTER TRUNCATE ON crm_contacts
  FOR EACH STATEMENT EXECUTE FUNCTION account_outreach_truncated();
--> statement-breakpoint
CREATE TRIGGER account_outreach_accounts_truncate AFTER TRUNCATE ON crm_accounts
  FOR EACH STATEMENT EXECUTE FUNCTION account_outreach_truncated();
--> statement-breakpoint
CREATE TRIGGER account_outreach_settings_truncate AFTER TRUNCATE ON crm_integration_settings
  FOR EACH STATEMENT EXECUTE FUNCTION account_outreach_truncated();
--> statement-breakpoint
CREATE TRIGGER account_outreach_ties_truncate AFTER TRUNCATE ON prospect_account_ties
  FOR EACH STATEMENT EXECUTE FUNCTION account_outreach_truncated();
--> statement-breakpoint
SELECT account_outreach_fill();
--> statement-breakpoint
ANALYZE "account_outreach";
