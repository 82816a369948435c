CREATE TABLE "journey_dirty_accounts" (
	"journey_id" uuid NOT NULL,
	"account_id" uuid NOT NULL
);
--> statement-breakpoint
DROP INDEX "journey_accounts_stage_idx";--> statement-breakpoint
ALTER TABLE "journeys" ADD COLUMN "full_evaluated_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "journey_dirty_accounts" ADD CONSTRAINT "journey_dirty_accounts_journey_id_journeys_id_fk" FOREIGN KEY ("journey_id") REFERENCES "public"."journeys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "journey_dirty_accounts_idx" ON "journey_dirty_accounts" USING btree ("journey_id","account_id");--> statement-breakpoint
CREATE INDEX "journey_accounts_stage_entered_idx" ON "journey_accounts" USING btree ("journey_id","stage_id","stage_entered_at");--> statement-breakpoint
-- Incremental journey evaluation (docs/decisions/0036-incremental-journey-evaluation.md): every
-- writer of the data a journey's rules read lists the accounts it changed here, in its own
-- transaction, so the journey job reads those accounts instead of every member. Triggers rather
-- than the writers: tracking, cohort sync, CRM sync, demo data, erasure and tests all write these
-- tables. Inserts only (no unique key), so two writers never wait on each other.
CREATE FUNCTION journey_dirty_company(client uuid, company uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF company IS NULL THEN RETURN; END IF;
  -- Only the journeys whose cohort has the company (the (cohort_id, company_id) index).
  INSERT INTO journey_dirty_accounts (journey_id, account_id)
  SELECT j.id, company FROM journeys j
   WHERE j.client_id = client
     AND EXISTS (SELECT 1 FROM cohort_members m WHERE m.cohort_id = j.cohort_id AND m.company_id = company);
END
$$;
--> statement-breakpoint
-- A member's impressions, clicks or views changed (tracking's batched UPDATE, one row per target).
CREATE FUNCTION journey_dirty_target() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO journey_dirty_accounts (journey_id, account_id)
  SELECT j.id, coalesce(m.company_id, m.prospect_id)
    FROM cohort_members m JOIN journeys j ON j.cohort_id = m.cohort_id
   WHERE m.target_id = NEW.id;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- Only when a count changed: the job's own target writes (day_number) do not fire it.
CREATE TRIGGER journey_dirty_target AFTER UPDATE OF impressions, clicks, views ON targets
  FOR EACH ROW WHEN (OLD.impressions IS DISTINCT FROM NEW.impressions OR OLD.clicks IS DISTINCT FROM NEW.clicks
    OR OLD.views IS DISTINCT FROM NEW.views)
  EXECUTE FUNCTION journey_dirty_target();
--> statement-breakpoint
-- New members (their account enters, or has one more member's counts).
CREATE FUNCTION journey_dirty_members_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO journey_dirty_accounts (journey_id, account_id)
  SELECT DISTINCT j.id, coalesce(n.company_id, n.prospect_id)
    FROM changed n JOIN journeys j ON j.cohort_id = n.cohort_id;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER journey_dirty_members_insert AFTER INSERT ON cohort_members
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION journey_dirty_members_insert();
--> statement-breakpoint
-- A sync rewrites every member it reads: only a member whose company or target changed counts.
CREATE FUNCTION journey_dirty_members_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO journey_dirty_accounts (journey_id, account_id)
  SELECT DISTINCT j.id, coalesce(n.company_id, n.prospect_id)
    FROM changed n JOIN prior o ON o.cohort_id = n.cohort_id AND o.prospect_id = n.prospect_id
    JOIN journeys j ON j.cohort_id = n.cohort_id
   WHERE n.company_id IS DISTINCT FROM o.company_id OR n.target_id IS DISTINCT FROM o.target_id;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER journey_dirty_members_update AFTER UPDATE ON cohort_members
  REFERENCING OLD TABLE AS prior NEW TABLE AS changed FOR EACH STATEMENT
  EXECUTE FUNCTION journey_dirty_members_update();
--> statement-breakpoint
-- Opportunities (opportunity_created, crm_stage_reached): the company before and after.
CREATE FUNCTION journey_dirty_opportunity() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN PERFORM journey_dirty_company(OLD.client_id, OLD.company_id); END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.company_id IS DISTINCT FROM OLD.company_id) THEN
    PERFORM journey_dirty_company(NEW.client_id, NEW.company_id);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER journey_dirty_opportunity AFTER INSERT OR DELETE ON opportunities
  FOR EACH ROW EXECUTE FUNCTION journey_dirty_opportunity();
--> statement-breakpoint
CREATE TRIGGER journey_dirty_opportunity_update AFTER UPDATE ON opportunities
  FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION journey_dirty_opportunity();
--> statement-breakpoint
-- Stage history (crm_stage_reached): its opportunity's company.
CREATE FUNCTION journey_dirty_stage_history() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  opp uuid;
BEGIN
  IF TG_OP = 'DELETE' THEN opp := OLD.opportunity_id; ELSE opp := NEW.opportunity_id; END IF;
  PERFORM journey_dirty_company(o.client_id, o.company_id) FROM opportunities o WHERE o.id = opp;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER journey_dirty_stage_history AFTER INSERT OR UPDATE OR DELETE ON opportunity_stage_history
  FOR EACH ROW EXECUTE FUNCTION journey_dirty_stage_history();
