ALTER TABLE "ad_audiences" ADD COLUMN "pool_when_small" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "ad_audiences" ADD COLUMN "pooled_with" jsonb;--> statement-breakpoint
ALTER TABLE "ad_audiences" ADD COLUMN "pool_note" text;