-- The days of a month with events, per account, as bits of the narrow row (bit i-1 for day i):
-- whether an account engaged in any run of the month's counted days is one AND, without reading the
-- month's cumulative arrays (account-rollups.ts `accountsEngagedIn`, the summary's engaged accounts).
ALTER TABLE "account_engagement" ADD COLUMN "days" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
-- The months counted before this have no bits: forgotten, they are counted again at the next read.
DELETE FROM "account_engagement_months";
