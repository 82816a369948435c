-- Engagement verdicts (issue 38, decision 0017). Every impression and click is judged: a person's, an
-- Apple Mail privacy prefetch (machine_open), a mail security scanner's or a bot's. Only a person's
-- count; the others are kept in `uncounted_events` with their verdict and reason, apart from
-- `engagement_events`, so that no reader of those has a filter to forget. Events recorded before
-- verdicts stay where they are and mean a person's (their `reason` is null).
CREATE TABLE "uncounted_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"target_id" uuid NOT NULL,
	"cadence_id" integer NOT NULL,
	"type" text NOT NULL,
	"verdict" text NOT NULL,
	"reason" text NOT NULL,
	"day_number" integer,
	"content_id" uuid,
	"size" text,
	"occurred_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "engagement_events" ADD COLUMN "reason" text;--> statement-breakpoint
CREATE INDEX "uncounted_events_target_idx" ON "uncounted_events" USING btree ("target_id","occurred_at");--> statement-breakpoint
CREATE INDEX "uncounted_events_client_idx" ON "uncounted_events" USING btree ("client_id","occurred_at");--> statement-breakpoint
-- The request decides the verdict and appends it with the event; the consumer routes the event by it.
ALTER TABLE "ingest_queue" ADD COLUMN "verdict" text DEFAULT 'person' NOT NULL;--> statement-breakpoint
ALTER TABLE "ingest_queue" ADD COLUMN "reason" text;