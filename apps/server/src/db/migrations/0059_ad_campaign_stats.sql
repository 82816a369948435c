CREATE TABLE "ad_network_campaign_stats" (
	"campaign_id" uuid NOT NULL,
	"client_id" uuid NOT NULL,
	"network_ad_id" text NOT NULL,
	"day" date NOT NULL,
	"impressions" bigint DEFAULT 0 NOT NULL,
	"reach" bigint DEFAULT 0 NOT NULL,
	"clicks" bigint DEFAULT 0 NOT NULL,
	"spend_minor" bigint DEFAULT 0 NOT NULL,
	"pulled_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ad_network_campaign_stats_campaign_id_network_ad_id_day_pk" PRIMARY KEY("campaign_id","network_ad_id","day")
);
--> statement-breakpoint
ALTER TABLE "ad_network_campaigns" ADD COLUMN "stats_pulled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "ad_network_campaigns" ADD COLUMN "stats_error" text;--> statement-breakpoint
ALTER TABLE "ad_network_campaign_stats" ADD CONSTRAINT "ad_network_campaign_stats_campaign_id_ad_network_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."ad_network_campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ad_network_campaign_stats" ADD CONSTRAINT "ad_network_campaign_stats_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ad_network_campaign_stats_client_day_idx" ON "ad_network_campaign_stats" USING btree ("client_id","day");