CREATE TABLE "journey_accounts" (
	"journey_id" uuid NOT NULL,
	"account_id" uuid NOT NULL,
	"client_id" uuid NOT NULL,
	"company_id" uuid,
	"stage_id" uuid NOT NULL,
	"entry_stage_id" uuid,
	"joined_at" timestamp with time zone DEFAULT now() NOT NULL,
	"stage_entered_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "journey_accounts_journey_id_account_id_pk" PRIMARY KEY("journey_id","account_id")
);
--> statement-breakpoint
CREATE TABLE "journey_moves" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"journey_id" uuid NOT NULL,
	"account_id" uuid NOT NULL,
	"company_id" uuid,
	"from_stage_id" uuid,
	"to_stage_id" uuid,
	"from_stage" text,
	"to_stage" text NOT NULL,
	"reason" text DEFAULT '' NOT NULL,
	"moved_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "journey_stages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"client_id" uuid NOT NULL,
	"journey_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"name" text NOT NULL,
	"content_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"rules" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"match" text DEFAULT 'any' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "journeys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"client_id" uuid NOT NULL,
	"cohort_id" uuid NOT NULL,
	"name" text NOT NULL,
	"created_by" uuid,
	"evaluated_at" timestamp with time zone,
	"eval_cursor" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "journey_accounts" ADD CONSTRAINT "journey_accounts_journey_id_journeys_id_fk" FOREIGN KEY ("journey_id") REFERENCES "public"."journeys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journey_accounts" ADD CONSTRAINT "journey_accounts_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journey_accounts" ADD CONSTRAINT "journey_accounts_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journey_accounts" ADD CONSTRAINT "journey_accounts_stage_id_journey_stages_id_fk" FOREIGN KEY ("stage_id") REFERENCES "public"."journey_stages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journey_accounts" ADD CONSTRAINT "journey_accounts_entry_stage_id_journey_stages_id_fk" FOREIGN KEY ("entry_stage_id") REFERENCES "public"."journey_stages"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journey_moves" ADD CONSTRAINT "journey_moves_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journey_moves" ADD CONSTRAINT "journey_moves_journey_id_journeys_id_fk" FOREIGN KEY ("journey_id") REFERENCES "public"."journeys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journey_moves" ADD CONSTRAINT "journey_moves_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journey_moves" ADD CONSTRAINT "journey_moves_from_stage_id_journey_stages_id_fk" FOREIGN KEY ("from_stage_id") REFERENCES "public"."journey_stages"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journey_moves" ADD CONSTRAINT "journey_moves_to_stage_id_journey_stages_id_fk" FOREIGN KEY ("to_stage_id") REFERENCES "public"."journey_stages"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journey_stages" ADD CONSTRAINT "journey_stages_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journey_stages" ADD CONSTRAINT "journey_stages_journey_id_journeys_id_fk" FOREIGN KEY ("journey_id") REFERENCES "public"."journeys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journeys" ADD CONSTRAINT "journeys_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journeys" ADD CONSTRAINT "journeys_cohort_id_cohorts_id_fk" FOREIGN KEY ("cohort_id") REFERENCES "public"."cohorts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journeys" ADD CONSTRAINT "journeys_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "journey_accounts_stage_idx" ON "journey_accounts" USING btree ("journey_id","stage_id");--> statement-breakpoint
CREATE INDEX "journey_moves_journey_idx" ON "journey_moves" USING btree ("journey_id","moved_at");--> statement-breakpoint
CREATE INDEX "journey_moves_account_idx" ON "journey_moves" USING btree ("journey_id","account_id");--> statement-breakpoint
CREATE INDEX "journey_stages_journey_idx" ON "journey_stages" USING btree ("journey_id","position");--> statement-breakpoint
CREATE UNIQUE INDEX "journeys_cohort_uq" ON "journeys" USING btree ("cohort_id");--> statement-breakpoint
CREATE INDEX "journeys_client_idx" ON "journeys" USING btree ("client_id");--> statement-breakpoint
CREATE INDEX "cohort_members_account_idx" ON "cohort_members" USING btree ("cohort_id",coalesce("company_id", "prospect_id"));