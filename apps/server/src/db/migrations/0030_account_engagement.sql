-- Engagement per account and month for the account reports (docs/reports.md "Account rollups";
-- apps/server/src/modules/reports/account-rollups.ts). SQL only, like the daily rollups: Drizzle cannot
-- express the trigger. A month counts its days [month, through): whole closed days whose daily rollup
-- marker (engagement_rollup_days) existed when they were added.
CREATE TABLE "account_engagement_months" (
	"client_id" uuid NOT NULL,
	"month" date NOT NULL,
	"through" date NOT NULL,
	"built_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "account_engagement_months_pk" PRIMARY KEY("client_id","month"),
	CONSTRAINT "account_engagement_months_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade
);
--> statement-breakpoint
-- One row per account (a Rally company) with events in the month: its totals over the counted days
-- (what a range covering them reads, a narrow row) ...
CREATE TABLE "account_engagement" (
	"client_id" uuid NOT NULL,
	"month" date NOT NULL,
	"company_id" uuid NOT NULL,
	"impressions" integer NOT NULL,
	"clicks" integer NOT NULL,
	"views" integer NOT NULL,
	"last_at" timestamp with time zone,
	CONSTRAINT "account_engagement_pk" PRIMARY KEY("client_id","month","company_id"),
	CONSTRAINT "account_engagement_month_fk" FOREIGN KEY ("client_id","month") REFERENCES "account_engagement_months"("client_id","month") ON DELETE cascade
);
--> statement-breakpoint
-- ... and its counts by day, cumulative: [i] holds the events of days 1..i (past `through` they repeat
-- the last counted day), so any run of days is two subscripts; last_at[i] is the latest event of days
-- 1..i. Read for a range that starts or ends inside the counted days.
CREATE TABLE "account_engagement_days" (
	"client_id" uuid NOT NULL,
	"month" date NOT NULL,
	"company_id" uuid NOT NULL,
	"impressions" integer[] NOT NULL,
	"clicks" integer[] NOT NULL,
	"views" integer[] NOT NULL,
	"last_at" timestamp with time zone[] NOT NULL,
	CONSTRAINT "account_engagement_days_pk" PRIMARY KEY("client_id","month","company_id"),
	CONSTRAINT "account_engagement_days_month_fk" FOREIGN KEY ("client_id","month") REFERENCES "account_engagement_months"("client_id","month") ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX "account_engagement_company_idx" ON "account_engagement" USING btree ("client_id","company_id");
--> statement-breakpoint
-- A day's rollup marker goes when that day's events are written, updated or deleted (migration 0024):
-- the month that counted the day goes with it (and its rows, by cascade). Today has no marker, so the
-- tracking path never reaches this.
CREATE FUNCTION account_engagement_day_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM account_engagement_months m
   WHERE m.client_id = OLD.client_id AND m.month = date_trunc('month', OLD.day)::date AND OLD.day < m.through;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "account_engagement_day_gone" AFTER DELETE ON "engagement_rollup_days"
  FOR EACH ROW EXECUTE FUNCTION account_engagement_day_gone();
--> statement-breakpoint
-- A company website's bare domain, as repository.ts `websiteDomain` computes it, kept by the database:
-- the account rollups tie the prospects of a range's raw events to companies by their e-mail's
-- domain through this index instead of computing the expression for every company of the client.
ALTER TABLE "companies" ADD COLUMN "website_domain" text GENERATED ALWAYS AS (
  lower(regexp_replace(regexp_replace("website", '^[a-z][a-z0-9+.-]*://', '', 'i'), '^www[0-9]*[.]|[/:?#].*$', '', 'g'))
) STORED;
--> statement-breakpoint
CREATE INDEX "companies_client_website_domain_idx" ON "companies" USING btree ("client_id","website_domain")
  WHERE "website_domain" <> '';
