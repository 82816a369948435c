-- Each prospect's cadence ids (sorted), so that a search combined with a cadence filter intersects
-- the two inside one GIN index (search text and cadence ids) instead of probing the cadence's targets
-- for every prospect the search matches (issue 19). It replaces the trigram index of the search: a
-- separate index on the column was ANDed with it only while the column had no statistics. Triggers
-- on targets keep it exact for every writer: file imports, sequence syncs, cohorts, deletes and moves
-- of targets, and deletes of cadences (their targets go by cascade, which fires the delete trigger).
DROP INDEX "prospects_search_trgm_idx";
--> statement-breakpoint
ALTER TABLE "prospects" ADD COLUMN "cadence_ids" integer[] DEFAULT '{}'::int[] NOT NULL;
--> statement-breakpoint
CREATE FUNCTION prospect_cadence_ids(prospect uuid) RETURNS integer[] LANGUAGE sql STABLE AS $$
  SELECT coalesce(array_agg(DISTINCT cadence_id ORDER BY cadence_id), '{}') FROM targets WHERE prospect_id = prospect
$$;
--> statement-breakpoint
-- Recomputes the column of these prospects from their targets. The rows are locked first, in id
-- order, in a statement of their own: the UPDATE then runs on a snapshot taken after any concurrent
-- writer of the same prospects committed, so two transactions adding targets to one prospect cannot
-- each overwrite the other's cadence.
CREATE FUNCTION prospects_refresh_cadence_ids(ids uuid[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM prospects WHERE id = ANY (ids) ORDER BY id FOR NO KEY UPDATE;
  UPDATE prospects p SET cadence_ids = prospect_cadence_ids(p.id)
   WHERE p.id = ANY (ids) AND p.cadence_ids IS DISTINCT FROM prospect_cadence_ids(p.id);
END $$;
--> statement-breakpoint
-- New targets: only prospects that do not list the new cadences yet (a writer that knows them, the
-- file import, sets them when it inserts the prospect, and then this writes nothing). Each prospect
-- is read by a scalar subquery, an index probe: the planner knows nothing of a transition table's
-- size and joined 1,000 new targets to the whole prospects table by hash (50 ms a batch).
CREATE FUNCTION targets_cadence_ids_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM prospects_refresh_cadence_ids(array(
    SELECT n.prospect_id FROM (SELECT prospect_id, array_agg(cadence_id) AS ids FROM new_targets GROUP BY prospect_id) n
     WHERE NOT (SELECT p.cadence_ids FROM prospects p WHERE p.id = n.prospect_id) @> n.ids));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER targets_cadence_ids_insert AFTER INSERT ON targets
  REFERENCING NEW TABLE AS new_targets FOR EACH STATEMENT EXECUTE FUNCTION targets_cadence_ids_inserted();
--> statement-breakpoint
CREATE FUNCTION targets_cadence_ids_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM prospects_refresh_cadence_ids(array(
    SELECT o.prospect_id FROM (SELECT prospect_id, array_agg(cadence_id) AS ids FROM old_targets GROUP BY prospect_id) o
     WHERE (SELECT p.cadence_ids FROM prospects p WHERE p.id = o.prospect_id) && o.ids));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER targets_cadence_ids_delete AFTER DELETE ON targets
  REFERENCING OLD TABLE AS old_targets FOR EACH STATEMENT EXECUTE FUNCTION targets_cadence_ids_deleted();
--> statement-breakpoint
-- A target moved to another cadence or prospect. Row-level, limited to those columns: the tracking
-- path's counter updates of targets never queue it.
CREATE FUNCTION targets_cadence_ids_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM prospects_refresh_cadence_ids(ARRAY[OLD.prospect_id, NEW.prospect_id]);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER targets_cadence_ids_update AFTER UPDATE OF cadence_id, prospect_id ON targets FOR EACH ROW
  WHEN ((NEW.cadence_id, NEW.prospect_id) IS DISTINCT FROM (OLD.cadence_id, OLD.prospect_id))
  EXECUTE FUNCTION targets_cadence_ids_moved();
--> statement-breakpoint
-- The backfill rewrites the table (as ALTER TYPE with USING does) rather than updating every row:
-- an UPDATE would leave the table twice its size, half of it dead rows, and every scan slower.
ALTER TABLE "prospects" ALTER COLUMN "cadence_ids" TYPE integer[] USING prospect_cadence_ids(id);
--> statement-breakpoint
-- The cadence ids first: with the text first, a search alone scanned the index 3–4× slower.
CREATE INDEX "prospects_search_cadences_idx" ON "prospects" USING gin ("cadence_ids",("first_name" || ' ' || "last_name" || ' ' || coalesce("email", '') || ' ' || "title") gin_trgm_ops);
--> statement-breakpoint
-- The new index's expression has no statistics until the table is analysed: the search's estimates
-- (and plans) would fall back to defaults until autovacuum comes by.
ANALYZE prospects;
