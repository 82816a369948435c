-- Impression ingest appends and a single consumer folds (issue 19; ARCHITECTURE.md §5 allows it).
-- A tag request decides from a per-process cache of its target's state whether the event counts,
-- appends it to `ingest_queue` (a plain insert into a table with no other index and no trigger) and
-- is answered once that commits. One consumer at a time (an advisory lock) moves queued events into
-- `engagement_events`, adds them to the targets' counters with the superprospect rule and writes
-- the feed, in one transaction, so nothing is lost or counted twice across a crash.
-- SQL only, like the rollups: Drizzle cannot express the triggers.
CREATE TABLE "ingest_queue" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
	"client_id" uuid NOT NULL,
	"target_id" uuid NOT NULL,
	"cadence_id" integer NOT NULL,
	"type" text NOT NULL,
	"day_number" integer NOT NULL,
	"content_id" uuid,
	"size" text,
	"occurred_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
-- The cached decision is checked when the event is appended: each client's state version moves
-- whenever something the decision or the ad reads changes (a target's cadence, day, rep, token or
-- activity; a cadence, day, content, rep or client setting). An append made with an older version is
-- refused and the request reads the state again.
CREATE TABLE "tracking_state_versions" (
	"client_id" uuid PRIMARY KEY NOT NULL,
	"version" bigint NOT NULL
);
--> statement-breakpoint
-- Once per client and transaction (a transaction-local setting remembers it), so a million-row
-- update of one client writes one row version, not a million.
CREATE FUNCTION tracking_state_bump(c uuid) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  k text := 'rally_tsv.c' || replace(c::text, '-', '');
BEGIN
  IF c IS NULL OR current_setting(k, true) = '1' THEN
    RETURN;
  END IF;
  INSERT INTO tracking_state_versions AS v (client_id, version) VALUES (c, 1)
  ON CONFLICT (client_id) DO UPDATE SET version = v.version + 1;
  PERFORM set_config(k, '1', true);
END
$$;
--> statement-breakpoint
CREATE FUNCTION tracking_state_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM tracking_state_bump(OLD.client_id);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM tracking_state_bump(NEW.client_id);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- Deferred to commit: the version row is locked only from the bump to the commit, so writers of one
-- client's state do not hold it across their work (and cannot deadlock on it with their other rows),
-- and versions follow commit order. Only updates of the columns the decision reads queue an event:
-- the consumer's counter updates do not.
CREATE CONSTRAINT TRIGGER tracking_state_targets_update
  AFTER UPDATE OF client_id, cadence_id, prospect_id, sales_rep_id, day_number, is_active, token ON targets
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN ((OLD.client_id, OLD.cadence_id, OLD.prospect_id, OLD.sales_rep_id, OLD.day_number, OLD.is_active, OLD.token)
        IS DISTINCT FROM (NEW.client_id, NEW.cadence_id, NEW.prospect_id, NEW.sales_rep_id, NEW.day_number, NEW.is_active, NEW.token))
  EXECUTE FUNCTION tracking_state_changed();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER tracking_state_targets_delete
  AFTER DELETE ON targets DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION tracking_state_changed();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER tracking_state_cadences
  AFTER INSERT OR UPDATE OR DELETE ON cadences DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  EXECUTE FUNCTION tracking_state_changed();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER tracking_state_cadence_days
  AFTER INSERT OR UPDATE OR DELETE ON cadence_days DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  EXECUTE FUNCTION tracking_state_changed();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER tracking_state_content
  AFTER INSERT OR UPDATE OR DELETE ON content DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  EXECUTE FUNCTION tracking_state_changed();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER tracking_state_sales_reps
  AFTER INSERT OR UPDATE OR DELETE ON sales_reps DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  EXECUTE FUNCTION tracking_state_changed();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER tracking_state_client_settings
  AFTER INSERT OR UPDATE OR DELETE ON client_settings DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  EXECUTE FUNCTION tracking_state_changed();
--> statement-breakpoint
-- TRUNCATE fires no row trigger: every client's version moves.
CREATE FUNCTION tracking_state_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO tracking_state_versions AS v (client_id, version) SELECT id, 1 FROM clients
  ON CONFLICT (client_id) DO UPDATE SET version = v.version + 1;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER tracking_state_targets_truncate AFTER TRUNCATE ON targets
  FOR EACH STATEMENT EXECUTE FUNCTION tracking_state_truncated();
