CREATE TABLE "retention_settings" (
	"client_id" uuid PRIMARY KEY NOT NULL,
	"events_months" integer DEFAULT 25 NOT NULL,
	"export_files_days" integer DEFAULT 7 NOT NULL,
	"delivery_logs_days" integer DEFAULT 30 NOT NULL,
	"audit_log_days" integer DEFAULT 365 NOT NULL,
	"updated_by" uuid,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "retention_settings" ADD CONSTRAINT "retention_settings_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "retention_settings" ADD CONSTRAINT "retention_settings_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
-- Retention folds old raw events into the daily rollups (decision 0032). A folded day's rollups are
-- its only count from then on: they stay valid whatever happens to the partition, and the events
-- triggers keep them exact instead of dropping them (an event written, changed or deleted on a folded
-- day adds to or takes from its counts), except for the deletes of the fold itself, which run with
-- `rally.retention_fold` on because their events are already counted.
ALTER TABLE "engagement_rollup_days" ADD COLUMN "folded" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
CREATE FUNCTION engagement_rollup_add(client uuid, d date, content uuid, t text, n bigint) RETURNS void
  LANGUAGE plpgsql AS $$
BEGIN
  UPDATE engagement_rollups r SET events = r.events + n
   WHERE r.client_id = client AND r.day = d AND r.content_id IS NOT DISTINCT FROM content AND r.type = t;
  IF NOT FOUND THEN
    INSERT INTO engagement_rollups (client_id, day, content_id, type, events) VALUES (client, d, content, t, n);
  END IF;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION engagement_rollups_invalidate() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
  g record;
  sign int := CASE WHEN TG_OP = 'DELETE' THEN -1 ELSE 1 END;
BEGIN
  FOR r IN
    SELECT c.client_id, (c.occurred_at AT TIME ZONE 'UTC')::date AS day, min(c.occurred_at) AS first_at
      FROM changed c GROUP BY 1, 2 ORDER BY 1, 2
  LOOP
    PERFORM pg_advisory_xact_lock_shared(engagement_rollup_key(r.client_id, r.day));
    IF EXISTS (SELECT 1 FROM engagement_rollup_days d
                WHERE d.client_id = r.client_id AND d.day = r.day AND d.folded) THEN
      IF NOT (TG_OP = 'DELETE' AND current_setting('rally.retention_fold', true) = 'on') THEN
        FOR g IN
          SELECT c.content_id, c.type, count(*) AS n FROM changed c
           WHERE c.client_id = r.client_id AND (c.occurred_at AT TIME ZONE 'UTC')::date = r.day
           GROUP BY 1, 2
        LOOP
          PERFORM engagement_rollup_add(r.client_id, r.day, g.content_id, g.type, sign * g.n);
        END LOOP;
      END IF;
    ELSE
      DELETE FROM engagement_rollup_days d WHERE d.client_id = r.client_id AND d.day = r.day;
    END IF;
    DELETE FROM account_engagement_today t
     WHERE t.client_id = r.client_id AND t.day = r.day AND t.computed_to > r.first_at;
  END LOOP;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION engagement_rollups_invalidate_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
  g record;
BEGIN
  FOR r IN
    SELECT x.client_id, (x.occurred_at AT TIME ZONE 'UTC')::date AS day, min(x.occurred_at) AS first_at
      FROM (SELECT client_id, occurred_at FROM before_rows UNION ALL SELECT client_id, occurred_at FROM after_rows) x
     GROUP BY 1, 2 ORDER BY 1, 2
  LOOP
    PERFORM pg_advisory_xact_lock_shared(engagement_rollup_key(r.client_id, r.day));
    IF EXISTS (SELECT 1 FROM engagement_rollup_days d
                WHERE d.client_id = r.client_id AND d.day = r.day AND d.folded) THEN
      FOR g IN
        SELECT x.content_id, x.type, sum(x.n) AS n
          FROM (SELECT b.content_id, b.type, -1 AS n FROM before_rows b
                 WHERE b.client_id = r.client_id AND (b.occurred_at AT TIME ZONE 'UTC')::date = r.day
                UNION ALL
                SELECT a.content_id, a.type, 1 AS n FROM after_rows a
                 WHERE a.client_id = r.client_id AND (a.occurred_at AT TIME ZONE 'UTC')::date = r.day) x
         GROUP BY 1, 2 HAVING sum(x.n) <> 0
      LOOP
        PERFORM engagement_rollup_add(r.client_id, r.day, g.content_id, g.type, g.n);
      END LOOP;
    ELSE
      DELETE FROM engagement_rollup_days d WHERE d.client_id = r.client_id AND d.day = r.day;
    END IF;
    DELETE FROM account_engagement_today t
     WHERE t.client_id = r.client_id AND t.day = r.day AND t.computed_to > r.first_at;
  END LOOP;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- The fold's deletes leave each target's last engagement (migration 0035) as it was: the event still
-- happened, and its recount read every partition per target (15 s for a day of 1,111 events in the
-- retention bench).
CREATE OR REPLACE FUNCTION target_engagement_last_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('rally.retention_fold', true) = 'on' THEN
    RETURN NULL;
  END IF;
  PERFORM target_engagement_last_recount(
    (SELECT coalesce(jsonb_agg(jsonb_build_object('c', c.client_id, 't', c.target_id)), '[]') FROM changed c));
  RETURN NULL;
END
$$;
