-- Each target's last engagement event (docs/reports.md "Engaged targets"; reports/signals.ts
-- `engagedTargets`). The dashboard counted distinct targets over the range's raw events: 2.5 million
-- events and 1.2 s at the reports bench's size. With the last event of each target, the targets
-- engaged in [from, to) are those whose last event is at or after `from`, less those whose last event
-- is at or after `to` and that have no event in [from, to) (few when `to` is near now). Kept by the
-- event table's own statement triggers, so every writer of events keeps it, in the same transaction.
-- SQL only, like the rollups: Drizzle cannot express the triggers.
-- Keyed by the event's client and target, as the raw count was (an event names both). Only the key
-- is indexed, so the update an event makes is a HOT one.
CREATE TABLE "target_engagement_last" (
	"client_id" uuid NOT NULL,
	"target_id" uuid NOT NULL,
	"last_at" timestamp with time zone NOT NULL,
	CONSTRAINT "target_engagement_last_pk" PRIMARY KEY("client_id","target_id")
);
--> statement-breakpoint
INSERT INTO "target_engagement_last" (client_id, target_id, last_at)
SELECT client_id, target_id, max(occurred_at) FROM engagement_events GROUP BY client_id, target_id;
--> statement-breakpoint
-- New events: each target's latest moves forward. Rows in target order, so concurrent writers lock
-- them in the same order.
CREATE FUNCTION target_engagement_last_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO target_engagement_last AS l (client_id, target_id, last_at)
  SELECT c.client_id, c.target_id, max(c.occurred_at) FROM changed c
   GROUP BY c.client_id, c.target_id ORDER BY c.client_id, c.target_id
  ON CONFLICT (client_id, target_id) DO UPDATE SET last_at = excluded.last_at WHERE excluded.last_at > l.last_at;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- Events deleted or changed: the (client, target) pairs they name take their latest remaining event
-- again (from the (target_id, occurred_at) index), and lose their row when none is left.
CREATE FUNCTION target_engagement_last_recount(pairs jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  WITH p AS (
    SELECT DISTINCT (x->>'c')::uuid AS client_id, (x->>'t')::uuid AS target_id FROM jsonb_array_elements(pairs) x
  ), m AS (
    SELECT p.client_id, p.target_id,
           (SELECT max(e.occurred_at) FROM engagement_events e
             WHERE e.target_id = p.target_id AND e.client_id = p.client_id) AS last_at
      FROM p
  ), gone AS (
    DELETE FROM target_engagement_last l USING m
     WHERE l.client_id = m.client_id AND l.target_id = m.target_id AND m.last_at IS NULL
  )
  INSERT INTO target_engagement_last AS l (client_id, target_id, last_at)
  SELECT m.client_id, m.target_id, m.last_at FROM m WHERE m.last_at IS NOT NULL ORDER BY 1, 2
  ON CONFLICT (client_id, target_id) DO UPDATE SET last_at = excluded.last_at;
END
$$;
--> statement-breakpoint
CREATE FUNCTION target_engagement_last_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM target_engagement_last_recount(
    (SELECT coalesce(jsonb_agg(jsonb_build_object('c', c.client_id, 't', c.target_id)), '[]') FROM changed c));
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION target_engagement_last_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM target_engagement_last_recount(
    (SELECT coalesce(jsonb_agg(jsonb_build_object('c', x.client_id, 't', x.target_id)), '[]')
       FROM (SELECT client_id, target_id FROM before_rows UNION SELECT client_id, target_id FROM after_rows) x));
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION target_engagement_last_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM target_engagement_last;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "target_engagement_last_insert" AFTER INSERT ON "engagement_events"
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION target_engagement_last_insert();
--> statement-breakpoint
CREATE TRIGGER "target_engagement_last_delete" AFTER DELETE ON "engagement_events"
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION target_engagement_last_delete();
--> statement-breakpoint
CREATE TRIGGER "target_engagement_last_update" AFTER UPDATE ON "engagement_events"
  REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION target_engagement_last_update();
--> statement-breakpoint
CREATE TRIGGER "target_engagement_last_truncate" AFTER TRUNCATE ON "engagement_events"
  FOR EACH STATEMENT EXECUTE FUNCTION target_engagement_last_truncated();
