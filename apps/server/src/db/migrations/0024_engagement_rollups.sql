-- Daily engagement rollups for the reports (docs/reports.md "Daily rollups"; ARCHITECTURE.md §10).
-- Counted per client, UTC day, content and type. Written only by the reports module at read time
-- (apps/server/src/modules/reports/rollups.ts), only for closed days; a day counts only while its
-- marker row in engagement_rollup_days exists and names the partition that holds the day's events
-- now. SQL only, like the partitions: Drizzle cannot express the triggers.
CREATE TABLE "engagement_rollup_days" (
	"client_id" uuid NOT NULL,
	"day" date NOT NULL,
	-- The partition of engagement_events that held the day's events when it was rolled up: a
	-- partition dropped (or dropped and made again) gives another answer, and the day is stale.
	"part" oid,
	"rolled_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "engagement_rollup_days_pk" PRIMARY KEY("client_id","day"),
	CONSTRAINT "engagement_rollup_days_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE "engagement_rollups" (
	"client_id" uuid NOT NULL,
	"day" date NOT NULL,
	"content_id" uuid,
	"type" text NOT NULL,
	"events" integer NOT NULL,
	CONSTRAINT "engagement_rollups_day_fk" FOREIGN KEY ("client_id","day") REFERENCES "engagement_rollup_days"("client_id","day") ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX "engagement_rollups_client_day_idx" ON "engagement_rollups" USING btree ("client_id","day");
--> statement-breakpoint
-- The lock that orders a day's rollup against the writers of that day's events: writers take it
-- shared (they never wait for each other), the rollup takes it exclusive (try-lock: it never waits).
CREATE FUNCTION engagement_rollup_key(client uuid, day date) RETURNS bigint
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT hashtextextended(client::text || '/' || day::text, 1724) $$;
--> statement-breakpoint
-- The partition that holds a day's events now: the month's (named by ensure_engagement_partitions)
-- while it is attached, else the default one. A dropped, detached or remade partition answers
-- another oid, or none.
CREATE FUNCTION engagement_partition_of(day date) RETURNS oid
  LANGUAGE sql STABLE PARALLEL SAFE
  AS $$ SELECT coalesce(
          (SELECT i.inhrelid FROM pg_inherits i
            WHERE i.inhparent = 'engagement_events'::regclass
              AND i.inhrelid = to_regclass('engagement_events_' || to_char(day, 'YYYY_MM'))),
          (SELECT i.inhrelid FROM pg_inherits i
            WHERE i.inhparent = 'engagement_events'::regclass
              AND i.inhrelid = to_regclass('engagement_events_default'))) $$;
--> statement-breakpoint
-- After any insert, update or delete of events: the days they fall on are no longer rolled up.
-- One statement-level trigger per event kind (transition tables allow one kind each). For events at
-- "now" the delete finds no marker (today is never rolled up): an index probe per client and day.
CREATE FUNCTION engagement_rollups_invalidate() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  FOR r IN
    SELECT DISTINCT c.client_id, (c.occurred_at AT TIME ZONE 'UTC')::date AS day FROM changed c ORDER BY 1, 2
  LOOP
    PERFORM pg_advisory_xact_lock_shared(engagement_rollup_key(r.client_id, r.day));
    DELETE FROM engagement_rollup_days d WHERE d.client_id = r.client_id AND d.day = r.day;
  END LOOP;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION engagement_rollups_invalidate_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  FOR r IN
    SELECT DISTINCT x.client_id, (x.occurred_at AT TIME ZONE 'UTC')::date AS day
      FROM (SELECT client_id, occurred_at FROM before_rows UNION ALL SELECT client_id, occurred_at FROM after_rows) x
     ORDER BY 1, 2
  LOOP
    PERFORM pg_advisory_xact_lock_shared(engagement_rollup_key(r.client_id, r.day));
    DELETE FROM engagement_rollup_days d WHERE d.client_id = r.client_id AND d.day = r.day;
  END LOOP;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION engagement_rollups_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM engagement_rollup_days;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "engagement_rollups_insert" AFTER INSERT ON "engagement_events"
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION engagement_rollups_invalidate();
--> statement-breakpoint
CREATE TRIGGER "engagement_rollups_delete" AFTER DELETE ON "engagement_events"
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION engagement_rollups_invalidate();
--> statement-breakpoint
CREATE TRIGGER "engagement_rollups_update" AFTER UPDATE ON "engagement_events"
  REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION engagement_rollups_invalidate_update();
--> statement-breakpoint
CREATE TRIGGER "engagement_rollups_truncate" AFTER TRUNCATE ON "engagement_events"
  FOR EACH STATEMENT EXECUTE FUNCTION engagement_rollups_truncated();
