CREATE TABLE "client_settings" (
	"client_id" uuid PRIMARY KEY NOT NULL,
	"colors" jsonb NOT NULL,
	"facebook_cover_photo" text DEFAULT '' NOT NULL,
	"facebook_name" text DEFAULT '' NOT NULL,
	"facebook_page_url" text DEFAULT '' NOT NULL,
	"facebook_profile_photo" text DEFAULT '' NOT NULL,
	"favicon_url" text DEFAULT '' NOT NULL,
	"website_url" text DEFAULT '' NOT NULL,
	"logo_url" text DEFAULT '' NOT NULL,
	"revenue_report_enabled" boolean DEFAULT false NOT NULL,
	"landing_button_name" text DEFAULT '' NOT NULL,
	"landing_page_domain" text,
	"landing_page_domain_verified_at" timestamp with time zone,
	"landing_trigger_field" text DEFAULT '' NOT NULL,
	"landing_trigger_type" text DEFAULT '' NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "content" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"client_id" uuid NOT NULL,
	"name" text,
	"status" text DEFAULT 'draft' NOT NULL,
	"is_archived" boolean DEFAULT false NOT NULL,
	"template_id" integer DEFAULT 1 NOT NULL,
	"title" text DEFAULT '' NOT NULL,
	"image_text" text DEFAULT '' NOT NULL,
	"primary_text" text DEFAULT '' NOT NULL,
	"sdr_img_url" text DEFAULT '' NOT NULL,
	"colors" jsonb NOT NULL,
	"assignee" jsonb,
	"landing_page_payload" jsonb NOT NULL,
	"landing_page_url" text DEFAULT '' NOT NULL,
	"landing_page_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "landing_pages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"client_id" uuid NOT NULL,
	"name" text NOT NULL,
	"landing_page_payload" jsonb NOT NULL,
	"sdr_img_url" text DEFAULT '' NOT NULL,
	"logo_url" text DEFAULT '' NOT NULL,
	"favicon_url" text DEFAULT '' NOT NULL,
	"colors" jsonb NOT NULL,
	"assignee" jsonb,
	"is_archived" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "uploads" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"client_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"storage_key" text NOT NULL,
	"content_type" text NOT NULL,
	"byte_size" bigint NOT NULL,
	"width" integer NOT NULL,
	"height" integer NOT NULL,
	"sha256" text NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "engagement_events" (
	"id" bigserial NOT NULL,
	"client_id" uuid NOT NULL,
	"target_id" uuid NOT NULL,
	"cadence_id" integer NOT NULL,
	"type" text NOT NULL,
	"day_number" integer,
	"content_id" uuid,
	"size" text,
	"occurred_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "engagement_events_id_occurred_at_pk" PRIMARY KEY("id","occurred_at")
) PARTITION BY RANGE ("occurred_at");
--> statement-breakpoint
-- Monthly partitions (ARCHITECTURE.md §8), from a year back to three months ahead; the server's
-- maintenance creates later months ahead of time (ensure_engagement_partitions). The default
-- partition only catches what falls outside them.
CREATE OR REPLACE FUNCTION ensure_engagement_partitions(months_back int, months_ahead int) RETURNS void AS $$
DECLARE
  m date;
BEGIN
  FOR i IN -months_back..months_ahead LOOP
    m := (date_trunc('month', now()) + make_interval(months => i))::date;
    EXECUTE format(
      'CREATE TABLE IF NOT EXISTS %I PARTITION OF engagement_events FOR VALUES FROM (%L) TO (%L)',
      'engagement_events_' || to_char(m, 'YYYY_MM'), m, (m + interval '1 month')::date
    );
  END LOOP;
END
$$ LANGUAGE plpgsql;
--> statement-breakpoint
SELECT ensure_engagement_partitions(12, 3);
--> statement-breakpoint
CREATE TABLE "engagement_events_default" PARTITION OF "engagement_events" DEFAULT;
--> statement-breakpoint
CREATE TABLE "feed_items" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"type" text NOT NULL,
	"target_id" uuid,
	"cadence_id" integer,
	"prospect_id" uuid,
	"sales_rep_id" uuid,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "targets" ADD COLUMN "day_entered_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "targets" ADD COLUMN "day_impressions" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "targets" ADD COLUMN "day_clicks" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "client_settings" ADD CONSTRAINT "client_settings_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "content" ADD CONSTRAINT "content_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "landing_pages" ADD CONSTRAINT "landing_pages_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "uploads" ADD CONSTRAINT "uploads_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "uploads" ADD CONSTRAINT "uploads_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "client_settings_landing_domain_uq" ON "client_settings" USING btree ("landing_page_domain");--> statement-breakpoint
CREATE INDEX "content_client_idx" ON "content" USING btree ("client_id","is_archived");--> statement-breakpoint
CREATE INDEX "landing_pages_client_idx" ON "landing_pages" USING btree ("client_id");--> statement-breakpoint
CREATE INDEX "uploads_client_idx" ON "uploads" USING btree ("client_id");--> statement-breakpoint
CREATE INDEX "engagement_events_target_idx" ON "engagement_events" USING btree ("target_id","occurred_at");--> statement-breakpoint
CREATE INDEX "engagement_events_client_idx" ON "engagement_events" USING btree ("client_id","occurred_at");--> statement-breakpoint
CREATE INDEX "feed_items_client_idx" ON "feed_items" USING btree ("client_id","created_at");