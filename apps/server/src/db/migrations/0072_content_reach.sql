-- Content's targets reached without counting the range's raw events (issue 43; docs/reports.md
-- "Targets reached"; reports/content-reach.ts). The report counted the distinct targets of each ad over
-- the range's events: 2.5 million events of 90 days at the reports bench's size, 1.3 s. The targets an
-- ad reached in [from, to) are its (ad, target) pairs whose last event is at or after `from`, less
-- those whose last event is at or after `to` with none in the range (few when `to` is near now). So:
--   content_target_last: each (client, ad, target) pair's last event;
--   content_reach_days: per client, ad and UTC day, how many pairs have their last event that day,
-- and a range is a sum of days plus the part of its first day it cuts. Both are kept by the event
-- table's own statement triggers, in the writer's transaction, like target_engagement_last (0035).
-- Exact counts, no estimate (the product shows them).
-- `moved_from` is the pair's last event before the statement that moved it, for that statement's
-- RETURNING only: PostgreSQL 15 cannot return a row's old values, and the move must be read under the
-- row's lock (two writers of one pair each see the other's committed move).
-- Only the key is indexed, so moving `last_at` can be a HOT update.
CREATE TABLE "content_target_last" (
	"client_id" uuid NOT NULL,
	"content_id" uuid NOT NULL,
	"target_id" uuid NOT NULL,
	"last_at" timestamp with time zone NOT NULL,
	"moved_from" timestamp with time zone
) WITH (fillfactor = 90);
--> statement-breakpoint
CREATE TABLE "content_reach_days" (
	"client_id" uuid NOT NULL,
	"content_id" uuid NOT NULL,
	"day" date NOT NULL,
	"targets" integer NOT NULL,
	CONSTRAINT "content_reach_days_pk" PRIMARY KEY("client_id","content_id","day")
);
--> statement-breakpoint
-- The existing events: at the reports bench's size 10,000,000 events give 7.5 million pairs; the key
-- is built after the load, and the grouping gets memory enough not to spill.
SET LOCAL work_mem = '256MB';
--> statement-breakpoint
INSERT INTO "content_target_last" (client_id, content_id, target_id, last_at)
SELECT client_id, content_id, target_id, max(occurred_at) FROM engagement_events
 WHERE content_id IS NOT NULL GROUP BY client_id, content_id, target_id;
--> statement-breakpoint
ALTER TABLE "content_target_last" ADD CONSTRAINT "content_target_last_pk" PRIMARY KEY("client_id","content_id","target_id");
--> statement-breakpoint
INSERT INTO "content_reach_days" (client_id, content_id, day, targets)
SELECT client_id, content_id, (last_at AT TIME ZONE 'UTC')::date, count(*) FROM content_target_last
 GROUP BY 1, 2, 3;
--> statement-breakpoint
ANALYZE "content_target_last";
--> statement-breakpoint
ANALYZE "content_reach_days";
--> statement-breakpoint
RESET work_mem;
--> statement-breakpoint
-- The days' counts after pairs moved: `moves (client_id, content_id, day, n)`, +1 on a pair's new day
-- and -1 on its old one, summed per day (a move within a day cancels). Rows in key order, so writers
-- lock them in the same order.
CREATE FUNCTION content_reach_days_add(moves jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO content_reach_days AS r (client_id, content_id, day, targets)
  SELECT (x->>'c')::uuid, (x->>'k')::uuid, (x->>'d')::date, sum((x->>'n')::int)
    FROM jsonb_array_elements(moves) x
   GROUP BY 1, 2, 3 HAVING sum((x->>'n')::int) <> 0 ORDER BY 1, 2, 3
  ON CONFLICT (client_id, content_id, day) DO UPDATE SET targets = r.targets + excluded.targets;
END
$$;
--> statement-breakpoint
-- New events: each pair's last event moves forward (a backdated event does not move it back). The
-- upsert takes each pair's row lock and returns its old last event, so each move is counted once, by
-- the writer that made it. Pairs in key order.
CREATE FUNCTION content_reach_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH up AS (
    INSERT INTO content_target_last AS l (client_id, content_id, target_id, last_at)
    SELECT c.client_id, c.content_id, c.target_id, max(c.occurred_at) FROM changed c
     WHERE c.content_id IS NOT NULL
     GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (client_id, content_id, target_id)
      DO UPDATE SET last_at = excluded.last_at, moved_from = l.last_at WHERE excluded.last_at > l.last_at
    RETURNING l.client_id, l.content_id, l.last_at, l.moved_from
  ), moves AS (
    SELECT up.client_id, up.content_id, (up.last_at AT TIME ZONE 'UTC')::date AS day, 1 AS n FROM up
    UNION ALL
    SELECT up.client_id, up.content_id, (up.moved_from AT TIME ZONE 'UTC')::date, -1 FROM up
     WHERE up.moved_from IS NOT NULL
  ), days AS (
    SELECT m.client_id, m.content_id, m.day, sum(m.n)::int AS n FROM moves m
     GROUP BY 1, 2, 3 HAVING sum(m.n) <> 0
  )
  INSERT INTO content_reach_days AS r (client_id, content_id, day, targets)
  SELECT d.client_id, d.content_id, d.day, d.n FROM days d ORDER BY 1, 2, 3
  ON CONFLICT (client_id, content_id, day) DO UPDATE SET targets = r.targets + excluded.targets;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- Events deleted or changed: the pairs they name take their latest remaining event again (from the
-- (target_id, occurred_at) index), and lose their row when none is left. Each pair's row is made (a
-- placeholder at -infinity for a pair new to the table) and locked first, in key order; the latest
-- event is then read by a later statement, whose snapshot has every writer that moved the pair before
-- the lock was got.
CREATE FUNCTION content_reach_recount(pairs jsonb) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  moves jsonb;
BEGIN
  INSERT INTO content_target_last (client_id, content_id, target_id, last_at)
  SELECT DISTINCT (x->>'c')::uuid, (x->>'k')::uuid, (x->>'t')::uuid, '-infinity'::timestamptz
    FROM jsonb_array_elements(pairs) x ORDER BY 1, 2, 3
  ON CONFLICT (client_id, content_id, target_id) DO NOTHING;
  PERFORM 1 FROM content_target_last l
    JOIN (SELECT DISTINCT (x->>'c')::uuid AS client_id, (x->>'k')::uuid AS content_id, (x->>'t')::uuid AS target_id
            FROM jsonb_array_elements(pairs) x) p USING (client_id, content_id, target_id)
   ORDER BY l.client_id, l.content_id, l.target_id FOR UPDATE OF l;
  WITH p AS (
    SELECT DISTINCT (x->>'c')::uuid AS client_id, (x->>'k')::uuid AS content_id, (x->>'t')::uuid AS target_id
      FROM jsonb_array_elements(pairs) x
  ), m AS (
    SELECT l.client_id, l.content_id, l.target_id, l.last_at AS old_at,
           (SELECT max(e.occurred_at) FROM engagement_events e
             WHERE e.target_id = l.target_id AND e.client_id = l.client_id AND e.content_id = l.content_id) AS new_at
      FROM content_target_last l JOIN p USING (client_id, content_id, target_id)
  ), gone AS (
    DELETE FROM content_target_last l USING m
     WHERE l.client_id = m.client_id AND l.content_id = m.content_id AND l.target_id = m.target_id
       AND m.new_at IS NULL
  ), up AS (
    UPDATE content_target_last l SET last_at = m.new_at, moved_from = NULL FROM m
     WHERE l.client_id = m.client_id AND l.content_id = m.content_id AND l.target_id = m.target_id
       AND m.new_at IS NOT NULL AND m.new_at <> m.old_at
  )
  SELECT coalesce(jsonb_agg(jsonb_build_object('c', x.client_id, 'k', x.content_id, 'd', x.day, 'n', x.n)), '[]')
    INTO moves
    FROM (
      SELECT m.client_id, m.content_id, (m.new_at AT TIME ZONE 'UTC')::date AS day, 1 AS n FROM m
       WHERE m.new_at IS NOT NULL AND m.new_at <> m.old_at
      UNION ALL
      SELECT m.client_id, m.content_id, (m.old_at AT TIME ZONE 'UTC')::date, -1 FROM m
       WHERE m.old_at <> '-infinity' AND m.new_at IS DISTINCT FROM m.old_at
    ) x;
  PERFORM content_reach_days_add(moves);
END
$$;
--> statement-breakpoint
-- The retention fold's own deletes (`rally.retention_fold` on) leave the pairs as they are, as they
-- leave target_engagement_last (0063): a folded period's targets reached cannot be counted any more,
-- and every range after it is unchanged (a pair whose last event was folded has no event after it).
CREATE FUNCTION content_reach_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(current_setting('rally.retention_fold', true), '') = 'on' THEN
    RETURN NULL;
  END IF;
  PERFORM content_reach_recount(
    (SELECT coalesce(jsonb_agg(DISTINCT jsonb_build_object('c', c.client_id, 'k', c.content_id, 't', c.target_id)), '[]')
       FROM changed c WHERE c.content_id IS NOT NULL));
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- Only rows whose client, ad, target or time changed (matched by id) move a pair.
CREATE FUNCTION content_reach_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM content_reach_recount(
    (SELECT coalesce(jsonb_agg(DISTINCT jsonb_build_object('c', x.client_id, 'k', x.content_id, 't', x.target_id)), '[]')
       FROM (
         SELECT b.client_id, b.content_id, b.target_id FROM before_rows b
           LEFT JOIN after_rows a ON a.id = b.id
          WHERE (a.client_id, a.content_id, a.target_id, a.occurred_at)
                IS DISTINCT FROM (b.client_id, b.content_id, b.target_id, b.occurred_at)
         UNION ALL
         SELECT a.client_id, a.content_id, a.target_id FROM after_rows a
           LEFT JOIN before_rows b ON b.id = a.id
          WHERE (a.client_id, a.content_id, a.target_id, a.occurred_at)
                IS DISTINCT FROM (b.client_id, b.content_id, b.target_id, b.occurred_at)
       ) x WHERE x.content_id IS NOT NULL));
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION content_reach_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM content_target_last;
  DELETE FROM content_reach_days;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "content_reach_insert" AFTER INSERT ON "engagement_events"
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION content_reach_insert();
--> statement-breakpoint
CREATE TRIGGER "content_reach_delete" AFTER DELETE ON "engagement_events"
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION content_reach_delete();
--> statement-breakpoint
CREATE TRIGGER "content_reach_update" AFTER UPDATE ON "engagement_events"
  REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION content_reach_update();
--> statement-breakpoint
CREATE TRIGGER "content_reach_truncate" AFTER TRUNCATE ON "engagement_events"
  FOR EACH STATEMENT EXECUTE FUNCTION content_reach_truncated();
