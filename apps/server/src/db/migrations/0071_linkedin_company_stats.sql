CREATE TABLE "ad_network_company_stats" (
	"campaign_id" uuid NOT NULL,
	"client_id" uuid NOT NULL,
	"network" text NOT NULL,
	"organization_id" text NOT NULL,
	"day" date NOT NULL,
	"impressions" bigint DEFAULT 0 NOT NULL,
	"clicks" bigint DEFAULT 0 NOT NULL,
	"pulled_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ad_network_company_stats_campaign_id_organization_id_day_pk" PRIMARY KEY("campaign_id","organization_id","day")
);
--> statement-breakpoint
CREATE TABLE "ad_network_organizations" (
	"client_id" uuid NOT NULL,
	"network" text NOT NULL,
	"organization_id" text NOT NULL,
	"name" text,
	"vanity_name" text,
	"website" text,
	"domain" text,
	"crm_account_id" uuid,
	"matched_by" text,
	"looked_up_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ad_network_organizations_client_id_network_organization_id_pk" PRIMARY KEY("client_id","network","organization_id")
);
--> statement-breakpoint
ALTER TABLE "ad_network_company_stats" ADD CONSTRAINT "ad_network_company_stats_campaign_id_ad_network_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."ad_network_campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ad_network_company_stats" ADD CONSTRAINT "ad_network_company_stats_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ad_network_organizations" ADD CONSTRAINT "ad_network_organizations_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ad_network_organizations" ADD CONSTRAINT "ad_network_organizations_crm_account_id_crm_accounts_id_fk" FOREIGN KEY ("crm_account_id") REFERENCES "public"."crm_accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ad_network_company_stats_org_day_idx" ON "ad_network_company_stats" USING btree ("client_id","network","organization_id","day");--> statement-breakpoint
CREATE INDEX "ad_network_organizations_account_idx" ON "ad_network_organizations" USING btree ("crm_account_id");