-- Each prospect's accounts by the attribution model's four ties (docs/reports.md "Tying a prospect to
-- an account", "Stored ties"): its company; the company of a CRM account it is a contact of; a CRM
-- account of its e-mail's domain; a company whose website is its e-mail's domain. The reports tied
-- prospects to accounts at read time, four probes per prospect: 35,000 worked CRM contacts (alignment)
-- or the prospects of a day's raw events (priority, alignment) cost hundreds of ms at the reports
-- bench's size. Kept in the writer's transaction by triggers on the four tables the ties read, so a
-- read is always the model's answer for the facts of the moment.
-- SQL only, like the rollups: Drizzle cannot express the triggers.
-- No foreign keys: a prospect's or company's deletion removes its rows by trigger (statement-level,
-- so a bulk delete costs one statement, and an insert of ties checks no key).
CREATE TABLE "prospect_account_ties" (
	"client_id" uuid NOT NULL,
	"prospect_id" uuid NOT NULL,
	"company_id" uuid NOT NULL,
	CONSTRAINT "prospect_account_ties_pk" PRIMARY KEY("prospect_id","company_id")
);
--> statement-breakpoint
-- An account's prospects (engaged prospects of a page's rows, the attribution of one opportunity) and
-- the client's whole mapping (the account rollups), both without reading the table.
CREATE INDEX "prospect_account_ties_client_company_idx" ON "prospect_account_ties" USING btree ("client_id","company_id","prospect_id");
--> statement-breakpoint
-- The ties of one prospect, computed again from the facts. Row triggers call it: a scalar key keeps
-- the cached plan on the indexes (an array parameter's generic plan hashed whole tables, about 1 ms a
-- call, where this is about 0.1 ms).
CREATE FUNCTION prospect_ties_refresh_one(pid uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM prospect_account_ties WHERE prospect_id = pid;
  INSERT INTO prospect_account_ties (client_id, prospect_id, company_id)
  SELECT DISTINCT x.client_id, x.prospect_id, x.company_id FROM (
    SELECT p.client_id, p.id AS prospect_id, p.company_id
      FROM prospects p
     WHERE p.id = pid AND p.company_id IS NOT NULL
    UNION ALL
    SELECT p.client_id, p.id, a.company_id
      FROM prospects p
      JOIN crm_contacts cc ON cc.prospect_id = p.id AND cc.client_id = p.client_id AND NOT cc.is_deleted
      JOIN crm_accounts a ON a.id = cc.account_id AND NOT a.is_deleted
     WHERE p.id = pid AND a.company_id IS NOT NULL
    UNION ALL
    SELECT p.client_id, p.id, a.company_id
      FROM prospects p
      JOIN crm_accounts a
        ON a.client_id = p.client_id AND a.domain = lower(split_part(p.email, '@', 2)) AND NOT a.is_deleted
     WHERE p.id = pid AND lower(split_part(p.email, '@', 2)) <> '' AND a.company_id IS NOT NULL
    UNION ALL
    SELECT p.client_id, p.id, c.id
      FROM prospects p
      JOIN companies c ON c.client_id = p.client_id AND c.website_domain = lower(split_part(p.email, '@', 2))
     WHERE p.id = pid AND c.website_domain <> ''
  ) x
  ORDER BY x.company_id
  ON CONFLICT (prospect_id, company_id) DO NOTHING;
END $$;
--> statement-breakpoint
-- The ties of the given prospects: one by one for a few, in one statement for many. Rows are written
-- in key order, so concurrent writers lock them in the same order; a tie another transaction wrote
-- first is kept.
CREATE FUNCTION prospect_ties_refresh(ids uuid[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  pid uuid;
BEGIN
  IF ids IS NULL OR cardinality(ids) = 0 THEN
    RETURN;
  END IF;
  IF cardinality(ids) <= 20 THEN
    FOREACH pid IN ARRAY ids LOOP
      PERFORM prospect_ties_refresh_one(pid);
    END LOOP;
    RETURN;
  END IF;
  DELETE FROM prospect_account_ties WHERE prospect_id = ANY(ids);
  INSERT INTO prospect_account_ties (client_id, prospect_id, company_id)
  SELECT DISTINCT x.client_id, x.prospect_id, x.company_id FROM (
    SELECT p.client_id, p.id AS prospect_id, p.company_id
      FROM prospects p
     WHERE p.id = ANY(ids) AND p.company_id IS NOT NULL
    UNION ALL
    SELECT p.client_id, p.id, a.company_id
      FROM prospects p
      JOIN crm_contacts cc ON cc.prospect_id = p.id AND cc.client_id = p.client_id AND NOT cc.is_deleted
      JOIN crm_accounts a ON a.id = cc.account_id AND NOT a.is_deleted
     WHERE p.id = ANY(ids) AND a.company_id IS NOT NULL
    UNION ALL
    SELECT p.client_id, p.id, a.company_id
      FROM prospects p
      JOIN crm_accounts a
        ON a.client_id = p.client_id AND a.domain = lower(split_part(p.email, '@', 2)) AND NOT a.is_deleted
     WHERE p.id = ANY(ids) AND lower(split_part(p.email, '@', 2)) <> '' AND a.company_id IS NOT NULL
    UNION ALL
    SELECT p.client_id, p.id, c.id
      FROM prospects p
      JOIN companies c ON c.client_id = p.client_id AND c.website_domain = lower(split_part(p.email, '@', 2))
     WHERE p.id = ANY(ids) AND c.website_domain <> ''
  ) x
  ORDER BY x.prospect_id, x.company_id
  ON CONFLICT (prospect_id, company_id) DO NOTHING;
END $$;
--> statement-breakpoint
-- The client's prospects whose e-mail domain is one of `domains` (the prospects' domain index).
CREATE FUNCTION prospect_ties_of_domains(client uuid, domains text[]) RETURNS uuid[] LANGUAGE sql STABLE AS $$
  SELECT coalesce(array_agg(p.id), '{}') FROM prospects p
   WHERE p.client_id = client AND p.email IS NOT NULL
     AND lower(split_part(p.email, '@', 2)) = ANY(array_remove(domains, ''))
$$;
--> statement-breakpoint
-- Prospects: new ones are tied, deleted ones untied; a new company or e-mail ties again.
CREATE FUNCTION prospect_ties_prospects_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM prospect_ties_refresh((SELECT array_agg(n.id) FROM new_rows n));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION prospect_ties_prospects_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM prospect_account_ties t USING old_rows o WHERE t.prospect_id = o.id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION prospect_ties_prospect_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM prospect_ties_refresh_one(NEW.id);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER prospect_ties_prospects_insert AFTER INSERT ON prospects
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION prospect_ties_prospects_inserted();
--> statement-breakpoint
CREATE TRIGGER prospect_ties_prospects_delete AFTER DELETE ON prospects
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION prospect_ties_prospects_deleted();
--> statement-breakpoint
-- Row-level with a WHEN, as the attribution markers (migration 0027): the many updates of prospects
-- that change neither (names, the cadence ids the targets' triggers keep) do not even call it.
CREATE TRIGGER prospect_ties_prospects_update
  AFTER UPDATE OF company_id, email, client_id ON prospects FOR EACH ROW
  WHEN ((NEW.company_id, lower(split_part(NEW.email, '@', 2)), NEW.client_id)
        IS DISTINCT FROM (OLD.company_id, lower(split_part(OLD.email, '@', 2)), OLD.client_id))
  EXECUTE FUNCTION prospect_ties_prospect_changed();
--> statement-breakpoint
-- CRM contacts tie their prospect to their account's company.
CREATE FUNCTION prospect_ties_contacts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM prospect_ties_refresh((SELECT array_agg(DISTINCT n.prospect_id) FROM new_rows n
                                    WHERE n.prospect_id IS NOT NULL AND n.account_id IS NOT NULL));
  ELSE
    PERFORM prospect_ties_refresh((SELECT array_agg(DISTINCT o.prospect_id) FROM old_rows o
                                    WHERE o.prospect_id IS NOT NULL AND o.account_id IS NOT NULL));
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION prospect_ties_contact_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.prospect_id IS NOT NULL THEN
    PERFORM prospect_ties_refresh_one(OLD.prospect_id);
  END IF;
  IF NEW.prospect_id IS NOT NULL AND NEW.prospect_id IS DISTINCT FROM OLD.prospect_id THEN
    PERFORM prospect_ties_refresh_one(NEW.prospect_id);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER prospect_ties_contacts_insert AFTER INSERT ON crm_contacts
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION prospect_ties_contacts_changed();
--> statement-breakpoint
CREATE TRIGGER prospect_ties_contacts_delete AFTER DELETE ON crm_contacts
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION prospect_ties_contacts_changed();
--> statement-breakpoint
CREATE TRIGGER prospect_ties_contacts_update
  AFTER UPDATE OF prospect_id, account_id, is_deleted, client_id ON crm_contacts FOR EACH ROW
  WHEN ((NEW.prospect_id, NEW.account_id, NEW.is_deleted, NEW.client_id)
        IS DISTINCT FROM (OLD.prospect_id, OLD.account_id, OLD.is_deleted, OLD.client_id))
  EXECUTE FUNCTION prospect_ties_contact_changed();
--> statement-breakpoint
-- CRM accounts tie their contacts' prospects and the prospects of their domain to their company:
-- those prospects are computed again.
CREATE FUNCTION prospect_ties_of_accounts(client uuid, ids uuid[], domains text[]) RETURNS uuid[] LANGUAGE sql STABLE AS $$
  SELECT ARRAY(
    SELECT cc.prospect_id FROM crm_contacts cc WHERE cc.account_id = ANY(ids) AND cc.prospect_id IS NOT NULL
    UNION SELECT unnest(prospect_ties_of_domains(client, domains)))
$$;
--> statement-breakpoint
CREATE FUNCTION prospect_ties_accounts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM prospect_ties_refresh(prospect_ties_of_accounts(n.client_id, array_agg(n.id), array_agg(DISTINCT n.domain)))
       FROM new_rows n GROUP BY n.client_id;
  ELSE
    PERFORM prospect_ties_refresh(prospect_ties_of_accounts(o.client_id, array_agg(o.id), array_agg(DISTINCT o.domain)))
       FROM old_rows o GROUP BY o.client_id;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION prospect_ties_account_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM prospect_ties_refresh(
    prospect_ties_of_accounts(OLD.client_id, ARRAY[OLD.id], ARRAY[OLD.domain])
    || prospect_ties_of_accounts(NEW.client_id, ARRAY[NEW.id], ARRAY[NEW.domain]));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER prospect_ties_accounts_insert AFTER INSERT ON crm_accounts
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION prospect_ties_accounts_changed();
--> statement-breakpoint
CREATE TRIGGER prospect_ties_accounts_delete AFTER DELETE ON crm_accounts
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION prospect_ties_accounts_changed();
--> statement-breakpoint
CREATE TRIGGER prospect_ties_accounts_update
  AFTER UPDATE OF company_id, domain, is_deleted, client_id ON crm_accounts FOR EACH ROW
  WHEN ((NEW.company_id, NEW.domain, NEW.is_deleted, NEW.client_id)
        IS DISTINCT FROM (OLD.company_id, OLD.domain, OLD.is_deleted, OLD.client_id))
  EXECUTE FUNCTION prospect_ties_account_changed();
--> statement-breakpoint
-- Companies tie the prospects of their website's domain; a deleted one is untied from all (its
-- prospects' and CRM accounts' references are cleared by their own keys, whose updates tie again).
CREATE FUNCTION prospect_ties_companies_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM prospect_ties_refresh(prospect_ties_of_domains(n.client_id, array_agg(DISTINCT n.website_domain)))
     FROM new_rows n WHERE n.website_domain <> '' GROUP BY n.client_id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION prospect_ties_companies_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM prospect_account_ties t USING old_rows o WHERE t.client_id = o.client_id AND t.company_id = o.id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION prospect_ties_company_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM prospect_ties_refresh(ARRAY(
    SELECT unnest(prospect_ties_of_domains(OLD.client_id, ARRAY[OLD.website_domain]))
    UNION SELECT unnest(prospect_ties_of_domains(NEW.client_id, ARRAY[NEW.website_domain]))));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER prospect_ties_companies_insert AFTER INSERT ON companies
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION prospect_ties_companies_inserted();
--> statement-breakpoint
CREATE TRIGGER prospect_ties_companies_delete AFTER DELETE ON companies
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION prospect_ties_companies_deleted();
--> statement-breakpoint
CREATE TRIGGER prospect_ties_companies_update
  AFTER UPDATE OF website, client_id ON companies FOR EACH ROW
  WHEN ((NEW.website, NEW.client_id) IS DISTINCT FROM (OLD.website, OLD.client_id))
  EXECUTE FUNCTION prospect_ties_company_changed();
--> statement-breakpoint
-- Every prospect's ties from the facts (this migration; the reports bench after a bulk load under
-- `session_replication_role = replica`, where no trigger fires).
CREATE FUNCTION prospect_ties_fill() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM prospect_account_ties;
  PERFORM prospect_ties_refresh(ARRAY(SELECT id FROM prospects));
END $$;
--> statement-breakpoint
-- TRUNCATE of any of the four tables (tests, a restore) fills the ties again from what is left.
CREATE FUNCTION prospect_ties_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM prospect_ties_fill();
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER prospect_ties_prospects_truncate AFTER TRUNCATE ON prospects
  FOR EACH STATEMENT EXECUTE FUNCTION prospect_ties_truncated();
--> statement-breakpoint
CREATE TRIGGER prospect_ties_companies_truncate AFTER TRUNCATE ON companies
  FOR EACH STATEMENT EXECUTE FUNCTION prospect_ties_truncated();
--> statement-breakpoint
CREATE TRIGGER prospect_ties_contacts_truncate AFTER TRUNCATE ON crm_contacts
  FOR EACH STATEMENT EXECUTE FUNCTION prospect_ties_truncated();
--> statement-breakpoint
CREATE TRIGGER prospect_ties_accounts_truncate AFTER TRUNCATE ON crm_accounts
  FOR EACH STATEMENT EXECUTE FUNCTION prospect_ties_truncated();
--> statement-breakpoint
SELECT prospect_ties_fill();
--> statement-breakpoint
-- Statistics now: the reports' plans over a just-filled table otherwise expect it empty until
-- autovacuum comes by (the alignment call took over two minutes instead of one second).
ANALYZE prospect_account_ties;
