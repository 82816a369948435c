-- Stored lift outcomes (issue 45; docs/reports.md "Lift", "Stored outcomes"). The lift report joined
-- every assigned target to its contacts, activities, ties and opportunities at read time: seconds at
-- the reports bench's million targets. Each target's outcomes in the window after it entered are kept
-- here, with their sums per cadence and group, and kept equal to the facts as the stored attribution
-- is: triggers below record in lift_dirty what a write may have changed, and the next report (or the
-- background job) computes those targets again (incrementality/store.ts). SQL only, like the ties:
-- Drizzle cannot express the triggers.
-- No foreign key on the markers: a client's deletion deletes its targets, whose trigger writes markers
-- in the same statement (the job drops markers of clients that are gone).
CREATE TABLE "lift_outcomes" (
	"target_id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL REFERENCES "clients"("id") ON DELETE cascade,
	"cadence_id" integer NOT NULL,
	"holdout_group" text NOT NULL,
	"entered_at" timestamp with time zone NOT NULL,
	"met" boolean NOT NULL,
	"super" boolean NOT NULL,
	"opportunities" integer NOT NULL,
	"pipeline_cents" bigint NOT NULL,
	"won_cents" bigint NOT NULL
);
--> statement-breakpoint
-- A client's rows (a whole computation, the export's pages by id).
CREATE INDEX "lift_outcomes_client_idx" ON "lift_outcomes" USING btree ("client_id", "target_id");
--> statement-breakpoint
-- The report reads these: a few rows per client. Amounts and their squares in cents, as numeric, so
-- adding and subtracting a target's part is exact however many times it is done.
CREATE TABLE "lift_sums" (
	"client_id" uuid NOT NULL REFERENCES "clients"("id") ON DELETE cascade,
	"cadence_id" integer NOT NULL,
	"holdout_group" text NOT NULL,
	"targets" bigint NOT NULL,
	"meetings" bigint NOT NULL,
	"with_opportunity" bigint NOT NULL,
	"opportunities" bigint NOT NULL,
	"supers" bigint NOT NULL,
	"pipeline_cents" numeric NOT NULL,
	"pipeline_squares" numeric NOT NULL,
	"won_cents" numeric NOT NULL,
	"won_squares" numeric NOT NULL,
	CONSTRAINT "lift_sums_pk" PRIMARY KEY ("client_id", "cadence_id", "holdout_group")
);
--> statement-breakpoint
-- What the stored rows were computed for: another window or main currency computes them all again.
CREATE TABLE "lift_state" (
	"client_id" uuid PRIMARY KEY NOT NULL REFERENCES "clients"("id") ON DELETE cascade,
	"window_days" integer NOT NULL,
	"currency" text NOT NULL,
	"refreshed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- kind: 'target' (ref a target), 'prospect' (its assigned targets), 'company' (the assigned targets
-- of the prospects tied to it), 'all' (every target of the client).
CREATE TABLE "lift_dirty" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"ref" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "lift_dirty_client_idx" ON "lift_dirty" USING btree ("client_id");
--> statement-breakpoint
-- Existing assignments: every client with one is computed whole by the job (or its first report).
INSERT INTO lift_dirty (client_id, kind)
SELECT DISTINCT client_id, 'all' FROM targets WHERE holdout_group IS NOT NULL;
--> statement-breakpoint
-- Targets: a new or deleted assigned target; an update of what its outcomes hang on (its prospect,
-- entry, cadence, superprospect date). Updates by a row trigger limited to those columns, so the
-- tracking path's counter updates do not even queue it (as migration 0027).
CREATE FUNCTION lift_targets_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO lift_dirty (client_id, kind, ref)
    SELECT n.client_id, 'target', n.id FROM new_rows n WHERE n.holdout_group IS NOT NULL;
  ELSE
    INSERT INTO lift_dirty (client_id, kind, ref)
    SELECT o.client_id, 'target', o.id FROM old_rows o WHERE o.holdout_group IS NOT NULL;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER lift_targets_insert AFTER INSERT ON targets
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION lift_targets_changed();
--> statement-breakpoint
CREATE TRIGGER lift_targets_delete AFTER DELETE ON targets
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION lift_targets_changed();
--> statement-breakpoint
CREATE FUNCTION lift_target_row_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO lift_dirty (client_id, kind, ref) VALUES (NEW.client_id, 'target', NEW.id);
  IF OLD.client_id IS DISTINCT FROM NEW.client_id THEN
    INSERT INTO lift_dirty (client_id, kind, ref) VALUES (OLD.client_id, 'target', OLD.id);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER lift_targets_update
  AFTER UPDATE OF prospect_id, client_id, cadence_id, created_at, super_date ON targets FOR EACH ROW
  WHEN (OLD.holdout_group IS NOT NULL
        AND (NEW.prospect_id, NEW.client_id, NEW.cadence_id, NEW.created_at, NEW.super_date)
            IS DISTINCT FROM (OLD.prospect_id, OLD.client_id, OLD.cadence_id, OLD.created_at, OLD.super_date))
  EXECUTE FUNCTION lift_target_row_changed();
--> statement-breakpoint
-- CRM contacts (a prospect's meetings go through them), their activity counts, and the prospect's
-- account ties (its opportunities): the prospects concerned, when they have an assigned target.
CREATE FUNCTION lift_contacts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO lift_dirty (client_id, kind, ref)
    SELECT DISTINCT t.client_id, 'prospect', t.prospect_id
      FROM (SELECT DISTINCT prospect_id FROM new_rows WHERE prospect_id IS NOT NULL) x
      JOIN targets t ON t.prospect_id = x.prospect_id AND t.holdout_group IS NOT NULL;
  ELSE
    INSERT INTO lift_dirty (client_id, kind, ref)
    SELECT DISTINCT t.client_id, 'prospect', t.prospect_id
      FROM (SELECT DISTINCT prospect_id FROM old_rows WHERE prospect_id IS NOT NULL) x
      JOIN targets t ON t.prospect_id = x.prospect_id AND t.holdout_group IS NOT NULL;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER lift_contacts_insert AFTER INSERT ON crm_contacts
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION lift_contacts_changed();
--> statement-breakpoint
CREATE TRIGGER lift_contacts_delete AFTER DELETE ON crm_contacts
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION lift_contacts_changed();
--> statement-breakpoint
CREATE FUNCTION lift_contact_row_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO lift_dirty (client_id, kind, ref)
  SELECT DISTINCT t.client_id, 'prospect', t.prospect_id FROM targets t
   WHERE t.prospect_id IN (OLD.prospect_id, NEW.prospect_id) AND t.holdout_group IS NOT NULL;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER lift_contacts_update
  AFTER UPDATE OF prospect_id, is_deleted ON crm_contacts FOR EACH ROW
  WHEN ((NEW.prospect_id, NEW.is_deleted) IS DISTINCT FROM (OLD.prospect_id, OLD.is_deleted))
  EXECUTE FUNCTION lift_contact_row_changed();
--> statement-breakpoint
CREATE FUNCTION lift_activities_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO lift_dirty (client_id, kind, ref)
    SELECT DISTINCT t.client_id, 'prospect', t.prospect_id
      FROM (SELECT DISTINCT contact_id FROM new_rows WHERE contact_id IS NOT NULL) x
      JOIN crm_contacts cc ON cc.id = x.contact_id
      JOIN targets t ON t.prospect_id = cc.prospect_id AND t.holdout_group IS NOT NULL;
  ELSE
    INSERT INTO lift_dirty (client_id, kind, ref)
    SELECT DISTINCT t.client_id, 'prospect', t.prospect_id
      FROM (SELECT DISTINCT contact_id FROM old_rows WHERE contact_id IS NOT NULL) x
      JOIN crm_contacts cc ON cc.id = x.contact_id
      JOIN targets t ON t.prospect_id = cc.prospect_id AND t.holdout_group IS NOT NULL;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER lift_activities_insert AFTER INSERT ON crm_activity_counts
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION lift_activities_changed();
--> statement-breakpoint
CREATE TRIGGER lift_activities_delete AFTER DELETE ON crm_activity_counts
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION lift_activities_changed();
--> statement-breakpoint
CREATE FUNCTION lift_activity_row_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO lift_dirty (client_id, kind, ref)
  SELECT DISTINCT t.client_id, 'prospect', t.prospect_id
    FROM crm_contacts cc
    JOIN targets t ON t.prospect_id = cc.prospect_id AND t.holdout_group IS NOT NULL
   WHERE cc.id IN (OLD.contact_id, NEW.contact_id);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER lift_activities_update
  AFTER UPDATE OF contact_id, integration_id, activity_type, last_activity_at ON crm_activity_counts FOR EACH ROW
  WHEN ((NEW.contact_id, NEW.integration_id, NEW.activity_type, NEW.last_activity_at)
        IS DISTINCT FROM (OLD.contact_id, OLD.integration_id, OLD.activity_type, OLD.last_activity_at))
  EXECUTE FUNCTION lift_activity_row_changed();
--> statement-breakpoint
CREATE FUNCTION lift_ties_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO lift_dirty (client_id, kind, ref)
    SELECT DISTINCT t.client_id, 'prospect', t.prospect_id
      FROM (SELECT DISTINCT prospect_id FROM new_rows) x
      JOIN targets t ON t.prospect_id = x.prospect_id AND t.holdout_group IS NOT NULL;
  ELSE
    INSERT INTO lift_dirty (client_id, kind, ref)
    SELECT DISTINCT t.client_id, 'prospect', t.prospect_id
      FROM (SELECT DISTINCT prospect_id FROM old_rows) x
      JOIN targets t ON t.prospect_id = x.prospect_id AND t.holdout_group IS NOT NULL;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER lift_ties_insert AFTER INSERT ON prospect_account_ties
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION lift_ties_changed();
--> statement-breakpoint
CREATE TRIGGER lift_ties_delete AFTER DELETE ON prospect_account_ties
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION lift_ties_changed();
--> statement-breakpoint
-- Opportunities: the company they are on, for clients with an assigned target (one probe per client
-- of the statement, on the holdout index).
CREATE FUNCTION lift_opportunities_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO lift_dirty (client_id, kind, ref)
    SELECT DISTINCT n.client_id, 'company', n.company_id
      FROM new_rows n
      JOIN (SELECT c.client_id FROM (SELECT DISTINCT client_id FROM new_rows) c
             WHERE EXISTS (SELECT 1 FROM targets t WHERE t.client_id = c.client_id AND t.holdout_group IS NOT NULL)) h
        ON h.client_id = n.client_id
     WHERE n.company_id IS NOT NULL;
  ELSE
    INSERT INTO lift_dirty (client_id, kind, ref)
    SELECT DISTINCT o.client_id, 'company', o.company_id
      FROM old_rows o
      JOIN (SELECT c.client_id FROM (SELECT DISTINCT client_id FROM old_rows) c
             WHERE EXISTS (SELECT 1 FROM targets t WHERE t.client_id = c.client_id AND t.holdout_group IS NOT NULL)) h
        ON h.client_id = o.client_id
     WHERE o.company_id IS NOT NULL;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER lift_opportunities_insert AFTER INSERT ON opportunities
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION lift_opportunities_changed();
--> statement-breakpoint
CREATE TRIGGER lift_opportunities_delete AFTER DELETE ON opportunities
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION lift_opportunities_changed();
--> statement-breakpoint
CREATE FUNCTION lift_opportunity_row_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO lift_dirty (client_id, kind, ref)
  SELECT DISTINCT x.client_id, 'company', x.company_id
    FROM (VALUES (OLD.client_id, OLD.company_id), (NEW.client_id, NEW.company_id)) AS x(client_id, company_id)
   WHERE x.company_id IS NOT NULL
     AND EXISTS (SELECT 1 FROM targets t WHERE t.client_id = x.client_id AND t.holdout_group IS NOT NULL);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER lift_opportunities_update
  AFTER UPDATE OF company_id, client_id, is_deleted, crm_created_at, amount_cents, currency, is_won, close_date
  ON opportunities FOR EACH ROW
  WHEN ((NEW.company_id, NEW.client_id, NEW.is_deleted, NEW.crm_created_at, NEW.amount_cents, NEW.currency,
         NEW.is_won, NEW.close_date)
        IS DISTINCT FROM (OLD.company_id, OLD.client_id, OLD.is_deleted, OLD.crm_created_at, OLD.amount_cents,
         OLD.currency, OLD.is_won, OLD.close_date))
  EXECUTE FUNCTION lift_opportunity_row_changed();
--> statement-breakpoint
-- Which activity types are meetings: every target of the client.
CREATE FUNCTION lift_meeting_types_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO lift_dirty (client_id, kind) VALUES (OLD.client_id, 'all');
  ELSE
    INSERT INTO lift_dirty (client_id, kind) VALUES (NEW.client_id, 'all');
    IF TG_OP = 'UPDATE' AND OLD.client_id IS DISTINCT FROM NEW.client_id THEN
      INSERT INTO lift_dirty (client_id, kind) VALUES (OLD.client_id, 'all');
    END IF;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER lift_meeting_types_insert AFTER INSERT ON crm_integration_settings
  FOR EACH ROW WHEN (NEW.meeting_activity_types <> '[]'::jsonb) EXECUTE FUNCTION lift_meeting_types_changed();
--> statement-breakpoint
CREATE TRIGGER lift_meeting_types_delete AFTER DELETE ON crm_integration_settings
  FOR EACH ROW WHEN (OLD.meeting_activity_types <> '[]'::jsonb) EXECUTE FUNCTION lift_meeting_types_changed();
--> statement-breakpoint
CREATE TRIGGER lift_meeting_types_update
  AFTER UPDATE OF meeting_activity_types, client_id ON crm_integration_settings FOR EACH ROW
  WHEN ((NEW.meeting_activity_types, NEW.client_id) IS DISTINCT FROM (OLD.meeting_activity_types, OLD.client_id))
  EXECUTE FUNCTION lift_meeting_types_changed();
