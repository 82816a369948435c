-- The day a range starts in, per account and hour (docs/reports.md "Account rollups";
-- apps/server/src/modules/reports/account-rollups.ts `ensureStartHours`). `alignment` (and
-- `pipeline/priority` outside UTC) cut their first day at the hour of the call, and the cut part was
-- read raw at every call: up to half a day of events, each tied to its accounts (11,000 at the reports
-- bench's size, about half of alignment's time). Now that part is these rows' hours after `from`'s hour
-- and at most an hour raw.
--
-- A day gets its rows when a range first starts in it (a closed, rolled-up day only), under the day's
-- exclusive lock, and keeps them while its rollup marker stands: a write of the day's events deletes the
-- marker (migration 0024) and these with it (cascade). A read takes them only while the marker is valid
-- and not folded (retention keeps a folded day's rollups exact, not these). Changed ties count the
-- accounts they name again (account-rollups.ts `forgetAccounts`), as the month rollups.
CREATE TABLE "account_engagement_hour_days" (
	"client_id" uuid NOT NULL,
	"day" date NOT NULL,
	"built_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "account_engagement_hour_days_pk" PRIMARY KEY("client_id","day"),
	CONSTRAINT "account_engagement_hour_days_day_fk" FOREIGN KEY ("client_id","day") REFERENCES "engagement_rollup_days"("client_id","day") ON DELETE cascade
);
--> statement-breakpoint
-- One row per account with events that day: [i] counts its events from hour i-1 (UTC) to the day's
-- end, so the hours from k on are one subscript ([k+1]); last_at is the day's latest event (the latest
-- from hour k on when it is at or after that hour, else there is none).
CREATE TABLE "account_engagement_hours" (
	"client_id" uuid NOT NULL,
	"day" date NOT NULL,
	"company_id" uuid NOT NULL,
	"impressions" integer[] NOT NULL,
	"clicks" integer[] NOT NULL,
	"views" integer[] NOT NULL,
	"last_at" timestamp with time zone NOT NULL,
	CONSTRAINT "account_engagement_hours_pk" PRIMARY KEY("client_id","day","company_id"),
	CONSTRAINT "account_engagement_hours_day_fk" FOREIGN KEY ("client_id","day") REFERENCES "account_engagement_hour_days"("client_id","day") ON DELETE cascade
);
--> statement-breakpoint
-- A range's whole days summed per account (account-ranges.ts): `alignment` summed one row per month
-- and account at every call (about 180,000 for 90 days at the reports bench's size) and read the
-- start month's cumulative arrays; these are one narrow row per account, made from the month rollups
-- while every month they read is counted and valid, with those months' rows locked.
CREATE TABLE "account_engagement_ranges" (
	"client_id" uuid NOT NULL,
	"first_day" date NOT NULL,
	"end_day" date NOT NULL,
	"built_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "account_engagement_ranges_pk" PRIMARY KEY("client_id","first_day","end_day"),
	CONSTRAINT "account_engagement_ranges_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade
);
--> statement-breakpoint
-- The days [first_day, end_day) of each account with events in them.
CREATE TABLE "account_engagement_range_rows" (
	"client_id" uuid NOT NULL,
	"first_day" date NOT NULL,
	"end_day" date NOT NULL,
	"company_id" uuid NOT NULL,
	"impressions" bigint NOT NULL,
	"clicks" bigint NOT NULL,
	"views" bigint NOT NULL,
	"last_at" timestamp with time zone,
	CONSTRAINT "account_engagement_range_rows_pk" PRIMARY KEY("client_id","first_day","end_day","company_id"),
	CONSTRAINT "account_engagement_range_rows_range_fk" FOREIGN KEY ("client_id","first_day","end_day") REFERENCES "account_engagement_ranges"("client_id","first_day","end_day") ON DELETE cascade
);
--> statement-breakpoint
-- A month that goes (a write to one of its counted days, changed ties of many accounts) takes the
-- sums over it with it.
CREATE FUNCTION account_engagement_ranges_month_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM account_engagement_ranges g
   WHERE g.client_id = OLD.client_id AND g.first_day < (OLD.month + interval '1 month')::date
     AND g.end_day > OLD.month;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "account_engagement_ranges_month_gone" AFTER DELETE ON "account_engagement_months"
  FOR EACH ROW EXECUTE FUNCTION account_engagement_ranges_month_gone();
