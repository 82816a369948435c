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
