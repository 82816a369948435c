-- Per account and year, the twelve months' day bits of account_engagement (migration 0032) in one
-- row (`days[m]` = month m's bits): whether an account had an event in a range of whole days is one
-- row per account instead of one per account and month, with no union of months to take apart
-- (account-rollups.ts `accountsEngagedIn`, the summary's engaged accounts). Rebuilt from
-- account_engagement in the transaction that changes it; a month's bits are read only while the
-- month is valid, like its rows.
CREATE TABLE "account_engagement_years" (
	"client_id" uuid NOT NULL,
	"year" integer NOT NULL,
	"company_id" uuid NOT NULL,
	"days" integer[] NOT NULL,
	CONSTRAINT "account_engagement_years_pk" PRIMARY KEY("client_id","year","company_id"),
	CONSTRAINT "account_engagement_years_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade
);
--> statement-breakpoint
-- The months counted before this have no year rows: forgotten, they are counted again at the next read.
DELETE FROM "account_engagement_months";
