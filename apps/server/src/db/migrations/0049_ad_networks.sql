CREATE TABLE "ad_audience_members" (
	"audience_id" uuid NOT NULL,
	"client_id" uuid NOT NULL,
	"hash" text NOT NULL,
	"state" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ad_audience_members_audience_id_hash_pk" PRIMARY KEY("audience_id","hash")
);
--> statement-breakpoint
CREATE TABLE "ad_audiences" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"client_id" uuid NOT NULL,
	"connection_id" uuid NOT NULL,
	"source_kind" text NOT NULL,
	"cohort_id" uuid,
	"journey_stage_id" uuid,
	"cadence_id" integer,
	"name" text NOT NULL,
	"network_audience_id" text,
	"ad_account_id" text,
	"state" text DEFAULT 'new' NOT NULL,
	"held_reason" text,
	"push_error" text,
	"member_count" integer DEFAULT 0 NOT NULL,
	"matched_lower" integer,
	"matched_upper" integer,
	"matched_at" timestamp with time zone,
	"last_pushed_at" timestamp with time zone,
	"last_push" jsonb,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ad_audiences_one_source" CHECK (num_nonnulls("ad_audiences"."cohort_id", "ad_audiences"."journey_stage_id", "ad_audiences"."cadence_id") = 1)
);
--> statement-breakpoint
CREATE TABLE "ad_network_connections" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"client_id" uuid NOT NULL,
	"network" text NOT NULL,
	"credentials_enc" text NOT NULL,
	"account_name" text,
	"ad_account_id" text,
	"ad_account_name" text,
	"page_id" text,
	"page_name" text,
	"is_active" boolean DEFAULT true NOT NULL,
	"inactive_reason" text,
	"connected_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ad_audience_members" ADD CONSTRAINT "ad_audience_members_audience_id_ad_audiences_id_fk" FOREIGN KEY ("audience_id") REFERENCES "public"."ad_audiences"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ad_audience_members" ADD CONSTRAINT "ad_audience_members_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ad_audiences" ADD CONSTRAINT "ad_audiences_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ad_audiences" ADD CONSTRAINT "ad_audiences_connection_id_ad_network_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."ad_network_connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ad_audiences" ADD CONSTRAINT "ad_audiences_cohort_id_cohorts_id_fk" FOREIGN KEY ("cohort_id") REFERENCES "public"."cohorts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ad_audiences" ADD CONSTRAINT "ad_audiences_journey_stage_id_journey_stages_id_fk" FOREIGN KEY ("journey_stage_id") REFERENCES "public"."journey_stages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ad_audiences" ADD CONSTRAINT "ad_audiences_cadence_id_cadences_id_fk" FOREIGN KEY ("cadence_id") REFERENCES "public"."cadences"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ad_audiences" ADD CONSTRAINT "ad_audiences_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ad_network_connections" ADD CONSTRAINT "ad_network_connections_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ad_network_connections" ADD CONSTRAINT "ad_network_connections_connected_by_users_id_fk" FOREIGN KEY ("connected_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ad_audience_members_state_idx" ON "ad_audience_members" USING btree ("audience_id","state");--> statement-breakpoint
CREATE INDEX "ad_audiences_client_idx" ON "ad_audiences" USING btree ("client_id");--> statement-breakpoint
CREATE UNIQUE INDEX "ad_audiences_source_uq" ON "ad_audiences" USING btree ("connection_id","source_kind",coalesce("cohort_id"::text, "journey_stage_id"::text, "cadence_id"::text));--> statement-breakpoint
CREATE UNIQUE INDEX "ad_network_connections_client_network_uq" ON "ad_network_connections" USING btree ("client_id","network");