-- Today's engagement per account, counted up to a moment (docs/reports.md "Account rollups";
-- apps/server/src/modules/reports/account-rollups.ts). The account rollups count closed days only, so a
-- range ending now read today's events raw and tied each to its accounts from its prospect: tens of
-- thousands of index probes per report on a large client. This keeps today's counts up to
-- `computed_to` (a minute before it was counted); a report reads them and the events after raw.
CREATE TABLE "account_engagement_today" (
	"client_id" uuid PRIMARY KEY NOT NULL,
	"day" date NOT NULL,
	"computed_to" timestamp with time zone NOT NULL,
	CONSTRAINT "account_engagement_today_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE "account_engagement_today_rows" (
	"client_id" uuid NOT NULL,
	"company_id" uuid NOT NULL,
	"impressions" integer NOT NULL,
	"clicks" integer NOT NULL,
	"views" integer NOT NULL,
	"last_at" timestamp with time zone,
	CONSTRAINT "account_engagement_today_rows_pk" PRIMARY KEY("client_id","company_id"),
	CONSTRAINT "account_engagement_today_rows_state_fk" FOREIGN KEY ("client_id") REFERENCES "account_engagement_today"("client_id") ON DELETE cascade
);
--> statement-breakpoint
-- The events triggers of migration 0024 also forget a client's counts of today when a written, changed
-- or deleted event falls before the moment they were counted to (an event of now never does: one index
-- probe per client and day). The writer holds the day's lock shared from here to its commit; the count
-- takes it exclusive, so a count never misses a writer in flight.
CREATE OR REPLACE FUNCTION engagement_rollups_invalidate() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  FOR r IN
    SELECT c.client_id, (c.occurred_at AT TIME ZONE 'UTC')::date AS day, min(c.occurred_at) AS first_at
      FROM changed c GROUP BY 1, 2 ORDER BY 1, 2
  LOOP
    PERFORM pg_advisory_xact_lock_shared(engagement_rollup_key(r.client_id, r.day));
    DELETE FROM engagement_rollup_days d WHERE d.client_id = r.client_id AND d.day = r.day;
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
BEGIN
  FOR r IN
    SELECT x.client_id, (x.occurred_at AT TIME ZONE 'UTC')::date AS day, min(x.occurred_at) AS first_at
      FROM (SELECT client_id, occurred_at FROM before_rows UNION ALL SELECT client_id, occurred_at FROM after_rows) x
     GROUP BY 1, 2 ORDER BY 1, 2
  LOOP
    PERFORM pg_advisory_xact_lock_shared(engagement_rollup_key(r.client_id, r.day));
    DELETE FROM engagement_rollup_days d WHERE d.client_id = r.client_id AND d.day = r.day;
    DELETE FROM account_engagement_today t
     WHERE t.client_id = r.client_id AND t.day = r.day AND t.computed_to > r.first_at;
  END LOOP;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION engagement_rollups_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM engagement_rollup_days;
  DELETE FROM account_engagement_today;
  RETURN NULL;
END
$$;
