CREATE TABLE "ad_network_campaigns" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"client_id" uuid NOT NULL,
	"audience_id" uuid NOT NULL,
	"content_id" uuid NOT NULL,
	"name" text NOT NULL,
	"objective" text NOT NULL,
	"budget_kind" text NOT NULL,
	"budget_minor" integer NOT NULL,
	"currency" text,
	"starts_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone,
	"landing_url" text NOT NULL,
	"token" text NOT NULL,
	"status" text DEFAULT 'paused' NOT NULL,
	"sync_state" text DEFAULT 'queued' NOT NULL,
	"sync_error" text,
	"network_campaign_id" text,
	"network_ad_set_id" text,
	"ads" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"effective_status" text,
	"issues" text,
	"status_read_at" timestamp with time zone,
	"creatives_synced_at" timestamp with time zone,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ad_network_campaigns_budget_positive" CHECK ("ad_network_campaigns"."budget_minor" > 0),
	CONSTRAINT "ad_network_campaigns_schedule" CHECK ("ad_network_campaigns"."ends_at" is null or "ad_network_campaigns"."ends_at" > "ad_network_campaigns"."starts_at")
);
--> statement-breakpoint
ALTER TABLE "ad_network_campaigns" ADD CONSTRAINT "ad_network_campaigns_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ad_network_campaigns" ADD CONSTRAINT "ad_network_campaigns_audience_id_ad_audiences_id_fk" FOREIGN KEY ("audience_id") REFERENCES "public"."ad_audiences"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ad_network_campaigns" ADD CONSTRAINT "ad_network_campaigns_content_id_content_id_fk" FOREIGN KEY ("content_id") REFERENCES "public"."content"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ad_network_campaigns" ADD CONSTRAINT "ad_network_campaigns_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ad_network_campaigns_client_idx" ON "ad_network_campaigns" USING btree ("client_id");--> statement-breakpoint
CREATE UNIQUE INDEX "ad_network_campaigns_token_uq" ON "ad_network_campaigns" USING btree ("token");