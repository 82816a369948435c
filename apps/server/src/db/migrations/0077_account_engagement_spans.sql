-- A range's whole days and the hours of the day it starts in, summed per account, kept
-- (docs/reports.md "Account rollups"; apps/server/src/modules/reports/account-spans.ts). `alignment`'s
-- range ends at the moment of the call, so it starts at an hour of a closed day: its read summed per
-- account the range's kept whole days (account_engagement_range_rows, one row per account) and the start
-- day's rows by hour (account_engagement_hours, up to one more row per account), about 70,000 rows per
-- call at the reports bench's size. These are the two summed once per start hour: one narrow row per
-- account, the same for every call of that hour.
--
-- Made from the two under their rows' locks (FOR SHARE) and in one snapshot; they go with either: a
-- range's sums that go (a month they read went, changed ties) and a start day's rows that go (a write of
-- the day's events drops its rollup marker, changed ties of many accounts, the days kept) take these with
-- them (cascade). A read takes them only while both still hold.
CREATE TABLE "account_engagement_spans" (
	"client_id" uuid NOT NULL,
	"first_day" date NOT NULL,
	"end_day" date NOT NULL,
	"from_hour" smallint NOT NULL,
	"hour_day" date NOT NULL,
	"built_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "account_engagement_spans_pk" PRIMARY KEY("client_id","first_day","end_day","from_hour"),
	CONSTRAINT "account_engagement_spans_range_fk" FOREIGN KEY ("client_id","first_day","end_day") REFERENCES "account_engagement_ranges"("client_id","first_day","end_day") ON DELETE cascade,
	CONSTRAINT "account_engagement_spans_hours_fk" FOREIGN KEY ("client_id","hour_day") REFERENCES "account_engagement_hour_days"("client_id","day") ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX "account_engagement_spans_hour_day_idx" ON "account_engagement_spans" ("client_id","hour_day");
--> statement-breakpoint
-- The events of [hour_day + from_hour hours, end_day) of each account with events in them.
CREATE TABLE "account_engagement_span_rows" (
	"client_id" uuid NOT NULL,
	"first_day" date NOT NULL,
	"end_day" date NOT NULL,
	"from_hour" smallint NOT NULL,
	"company_id" uuid NOT NULL,
	"impressions" integer NOT NULL,
	"clicks" integer NOT NULL,
	"views" integer NOT NULL,
	"last_at" timestamp with time zone,
	CONSTRAINT "account_engagement_span_rows_pk" PRIMARY KEY("client_id","first_day","end_day","from_hour","company_id"),
	CONSTRAINT "account_engagement_span_rows_span_fk" FOREIGN KEY ("client_id","first_day","end_day","from_hour") REFERENCES "account_engagement_spans"("client_id","first_day","end_day","from_hour") ON DELETE cascade
);
