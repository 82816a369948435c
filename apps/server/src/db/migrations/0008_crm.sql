CREATE TABLE "crm_accounts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"client_id" uuid NOT NULL,
	"integration_id" integer NOT NULL,
	"external_id" text NOT NULL,
	"name" text NOT NULL,
	"website" text,
	"domain" text,
	"company_id" uuid,
	"owner_external_id" text,
	"crm_updated_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "crm_activity_counts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"client_id" uuid NOT NULL,
	"integration_id" integer NOT NULL,
	"contact_external_id" text NOT NULL,
	"contact_id" uuid,
	"activity_type" text NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	"last_activity_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "crm_client_settings" (
	"client_id" uuid PRIMARY KEY NOT NULL,
	"selected_stage_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"valuable_stage_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "crm_contacts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"client_id" uuid NOT NULL,
	"integration_id" integer NOT NULL,
	"external_id" text NOT NULL,
	"email" text,
	"first_name" text DEFAULT '' NOT NULL,
	"last_name" text DEFAULT '' NOT NULL,
	"title" text DEFAULT '' NOT NULL,
	"account_external_id" text,
	"account_id" uuid,
	"prospect_id" uuid,
	"owner_external_id" text,
	"crm_updated_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "crm_integration_settings" (
	"integration_id" integer PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"outreach_activity_types" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"meeting_activity_types" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"write_back" boolean DEFAULT false NOT NULL,
	"write_back_target" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "crm_list_members" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"client_id" uuid NOT NULL,
	"list_id" uuid NOT NULL,
	"member_external_id" text NOT NULL,
	"contact_id" uuid,
	"account_id" uuid,
	"status" text DEFAULT '' NOT NULL,
	"added_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "crm_lists" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"client_id" uuid NOT NULL,
	"integration_id" integer NOT NULL,
	"external_id" text NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"member_type" text DEFAULT 'contact' NOT NULL,
	"member_count" integer DEFAULT 0 NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"crm_updated_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "crm_owners" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"client_id" uuid NOT NULL,
	"integration_id" integer NOT NULL,
	"external_id" text NOT NULL,
	"first_name" text DEFAULT '' NOT NULL,
	"last_name" text DEFAULT '' NOT NULL,
	"email" text,
	"is_active" boolean DEFAULT true NOT NULL,
	"sales_rep_id" uuid,
	"mapped_by_hand" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "crm_record_types" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"client_id" uuid NOT NULL,
	"integration_id" integer NOT NULL,
	"external_id" text NOT NULL,
	"name" text NOT NULL,
	"developer_name" text DEFAULT '' NOT NULL,
	"sobject_type" text DEFAULT 'Opportunity' NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "crm_stages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"client_id" uuid NOT NULL,
	"integration_id" integer NOT NULL,
	"pipeline_key" text DEFAULT 'default' NOT NULL,
	"pipeline_label" text DEFAULT 'Default' NOT NULL,
	"key" text NOT NULL,
	"label" text NOT NULL,
	"sort_order" integer DEFAULT 0 NOT NULL,
	"probability" integer,
	"is_closed" boolean DEFAULT false NOT NULL,
	"is_won" boolean DEFAULT false NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "opportunity_contacts" (
	"client_id" uuid NOT NULL,
	"opportunity_id" uuid NOT NULL,
	"contact_id" uuid NOT NULL,
	"role" text DEFAULT '' NOT NULL,
	"is_primary" boolean DEFAULT false NOT NULL,
	CONSTRAINT "opportunity_contacts_opportunity_id_contact_id_pk" PRIMARY KEY("opportunity_id","contact_id")
);
--> statement-breakpoint
CREATE TABLE "opportunity_stage_history" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"client_id" uuid NOT NULL,
	"opportunity_id" uuid NOT NULL,
	"external_id" text NOT NULL,
	"from_stage_id" uuid,
	"to_stage_id" uuid,
	"from_stage" text,
	"to_stage" text NOT NULL,
	"changed_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "opportunities" ADD COLUMN "stage_id" uuid;--> statement-breakpoint
ALTER TABLE "opportunities" ADD COLUMN "crm_created_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "opportunities" ADD COLUMN "crm_updated_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "opportunities" ADD COLUMN "is_closed" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "opportunities" ADD COLUMN "is_won" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "opportunities" ADD COLUMN "probability" integer;--> statement-breakpoint
ALTER TABLE "opportunities" ADD COLUMN "owner_id" uuid;--> statement-breakpoint
ALTER TABLE "opportunities" ADD COLUMN "record_type_id" uuid;--> statement-breakpoint
ALTER TABLE "opportunities" ADD COLUMN "account_external_id" text;--> statement-breakpoint
ALTER TABLE "opportunities" ADD COLUMN "is_deleted" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "crm_accounts" ADD CONSTRAINT "crm_accounts_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_accounts" ADD CONSTRAINT "crm_accounts_integration_id_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_accounts" ADD CONSTRAINT "crm_accounts_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_activity_counts" ADD CONSTRAINT "crm_activity_counts_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_activity_counts" ADD CONSTRAINT "crm_activity_counts_integration_id_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_activity_counts" ADD CONSTRAINT "crm_activity_counts_contact_id_crm_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."crm_contacts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_client_settings" ADD CONSTRAINT "crm_client_settings_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_contacts" ADD CONSTRAINT "crm_contacts_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_contacts" ADD CONSTRAINT "crm_contacts_integration_id_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_contacts" ADD CONSTRAINT "crm_contacts_account_id_crm_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."crm_accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_contacts" ADD CONSTRAINT "crm_contacts_prospect_id_prospects_id_fk" FOREIGN KEY ("prospect_id") REFERENCES "public"."prospects"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_integration_settings" ADD CONSTRAINT "crm_integration_settings_integration_id_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_integration_settings" ADD CONSTRAINT "crm_integration_settings_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_list_members" ADD CONSTRAINT "crm_list_members_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_list_members" ADD CONSTRAINT "crm_list_members_list_id_crm_lists_id_fk" FOREIGN KEY ("list_id") REFERENCES "public"."crm_lists"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_list_members" ADD CONSTRAINT "crm_list_members_contact_id_crm_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."crm_contacts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_list_members" ADD CONSTRAINT "crm_list_members_account_id_crm_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."crm_accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_lists" ADD CONSTRAINT "crm_lists_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_lists" ADD CONSTRAINT "crm_lists_integration_id_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_owners" ADD CONSTRAINT "crm_owners_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_owners" ADD CONSTRAINT "crm_owners_integration_id_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_owners" ADD CONSTRAINT "crm_owners_sales_rep_id_sales_reps_id_fk" FOREIGN KEY ("sales_rep_id") REFERENCES "public"."sales_reps"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_record_types" ADD CONSTRAINT "crm_record_types_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_record_types" ADD CONSTRAINT "crm_record_types_integration_id_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_stages" ADD CONSTRAINT "crm_stages_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_stages" ADD CONSTRAINT "crm_stages_integration_id_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "opportunity_contacts" ADD CONSTRAINT "opportunity_contacts_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "opportunity_contacts" ADD CONSTRAINT "opportunity_contacts_opportunity_id_opportunities_id_fk" FOREIGN KEY ("opportunity_id") REFERENCES "public"."opportunities"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "opportunity_contacts" ADD CONSTRAINT "opportunity_contacts_contact_id_crm_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."crm_contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "opportunity_stage_history" ADD CONSTRAINT "opportunity_stage_history_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "opportunity_stage_history" ADD CONSTRAINT "opportunity_stage_history_opportunity_id_opportunities_id_fk" FOREIGN KEY ("opportunity_id") REFERENCES "public"."opportunities"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "opportunity_stage_history" ADD CONSTRAINT "opportunity_stage_history_from_stage_id_crm_stages_id_fk" FOREIGN KEY ("from_stage_id") REFERENCES "public"."crm_stages"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "opportunity_stage_history" ADD CONSTRAINT "opportunity_stage_history_to_stage_id_crm_stages_id_fk" FOREIGN KEY ("to_stage_id") REFERENCES "public"."crm_stages"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "crm_accounts_integration_external_uq" ON "crm_accounts" USING btree ("integration_id","external_id");--> statement-breakpoint
CREATE INDEX "crm_accounts_client_domain_idx" ON "crm_accounts" USING btree ("client_id","domain");--> statement-breakpoint
CREATE INDEX "crm_accounts_company_idx" ON "crm_accounts" USING btree ("company_id");--> statement-breakpoint
CREATE UNIQUE INDEX "crm_activity_counts_integration_contact_type_uq" ON "crm_activity_counts" USING btree ("integration_id","contact_external_id","activity_type");--> statement-breakpoint
CREATE INDEX "crm_activity_counts_client_type_idx" ON "crm_activity_counts" USING btree ("client_id","activity_type");--> statement-breakpoint
CREATE INDEX "crm_activity_counts_contact_idx" ON "crm_activity_counts" USING btree ("contact_id");--> statement-breakpoint
CREATE UNIQUE INDEX "crm_contacts_integration_external_uq" ON "crm_contacts" USING btree ("integration_id","external_id");--> statement-breakpoint
CREATE INDEX "crm_contacts_client_email_idx" ON "crm_contacts" USING btree ("client_id",lower("email"));--> statement-breakpoint
CREATE INDEX "crm_contacts_prospect_idx" ON "crm_contacts" USING btree ("prospect_id");--> statement-breakpoint
CREATE INDEX "crm_contacts_account_idx" ON "crm_contacts" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "crm_integration_settings_client_idx" ON "crm_integration_settings" USING btree ("client_id");--> statement-breakpoint
CREATE UNIQUE INDEX "crm_list_members_list_member_uq" ON "crm_list_members" USING btree ("list_id","member_external_id");--> statement-breakpoint
CREATE INDEX "crm_list_members_contact_idx" ON "crm_list_members" USING btree ("contact_id");--> statement-breakpoint
CREATE INDEX "crm_list_members_client_idx" ON "crm_list_members" USING btree ("client_id");--> statement-breakpoint
CREATE UNIQUE INDEX "crm_lists_integration_external_uq" ON "crm_lists" USING btree ("integration_id","external_id");--> statement-breakpoint
CREATE INDEX "crm_lists_client_name_idx" ON "crm_lists" USING btree ("client_id",lower("name"),"id");--> statement-breakpoint
CREATE UNIQUE INDEX "crm_owners_integration_external_uq" ON "crm_owners" USING btree ("integration_id","external_id");--> statement-breakpoint
CREATE INDEX "crm_owners_client_email_idx" ON "crm_owners" USING btree ("client_id",lower("email"));--> statement-breakpoint
CREATE UNIQUE INDEX "crm_record_types_integration_external_uq" ON "crm_record_types" USING btree ("integration_id","external_id");--> statement-breakpoint
CREATE INDEX "crm_record_types_client_idx" ON "crm_record_types" USING btree ("client_id");--> statement-breakpoint
CREATE UNIQUE INDEX "crm_stages_integration_pipeline_key_uq" ON "crm_stages" USING btree ("integration_id","pipeline_key","key");--> statement-breakpoint
CREATE INDEX "crm_stages_client_idx" ON "crm_stages" USING btree ("client_id","pipeline_key","sort_order");--> statement-breakpoint
CREATE INDEX "opportunity_contacts_contact_idx" ON "opportunity_contacts" USING btree ("contact_id");--> statement-breakpoint
CREATE UNIQUE INDEX "opportunity_stage_history_opp_external_uq" ON "opportunity_stage_history" USING btree ("opportunity_id","external_id");--> statement-breakpoint
CREATE INDEX "opportunity_stage_history_client_changed_idx" ON "opportunity_stage_history" USING btree ("client_id","changed_at");--> statement-breakpoint
CREATE INDEX "opportunity_stage_history_to_stage_idx" ON "opportunity_stage_history" USING btree ("to_stage_id","changed_at");--> statement-breakpoint
ALTER TABLE "opportunities" ADD CONSTRAINT "opportunities_stage_id_crm_stages_id_fk" FOREIGN KEY ("stage_id") REFERENCES "public"."crm_stages"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "opportunities" ADD CONSTRAINT "opportunities_owner_id_crm_owners_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."crm_owners"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "opportunities" ADD CONSTRAINT "opportunities_record_type_id_crm_record_types_id_fk" FOREIGN KEY ("record_type_id") REFERENCES "public"."crm_record_types"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "opportunities_client_created_idx" ON "opportunities" USING btree ("client_id","crm_created_at");--> statement-breakpoint
CREATE INDEX "opportunities_stage_idx" ON "opportunities" USING btree ("stage_id");--> statement-breakpoint
CREATE INDEX "opportunities_company_idx" ON "opportunities" USING btree ("company_id");