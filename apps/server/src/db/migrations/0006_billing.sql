CREATE TABLE "billing_accounts" (
	"client_id" uuid PRIMARY KEY NOT NULL,
	"provider" text DEFAULT 'local' NOT NULL,
	"provider_customer_id" text,
	"payment_method_id" text,
	"card_brand" text,
	"card_last4" text,
	"card_exp_month" integer,
	"card_exp_year" integer,
	"card_updated_at" timestamp with time zone,
	"billing_address" jsonb,
	"billing_info" jsonb,
	"time_zone" text DEFAULT 'UTC' NOT NULL,
	"currency" text DEFAULT 'usd' NOT NULL,
	"plan" text DEFAULT 'pay_as_you_go' NOT NULL,
	"subscription_status" text DEFAULT 'active' NOT NULL,
	"cancel_at_period_end" boolean DEFAULT false NOT NULL,
	"subscription_started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "invoice_lines" (
	"id" serial PRIMARY KEY NOT NULL,
	"invoice_id" uuid NOT NULL,
	"client_id" uuid NOT NULL,
	"target_id" uuid NOT NULL,
	"cadence_id" integer NOT NULL,
	"cadence_name" text DEFAULT '' NOT NULL,
	"prospect_label" text DEFAULT '' NOT NULL,
	"super_date" timestamp with time zone NOT NULL,
	"amount_cents" integer DEFAULT 500 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "invoices" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"client_id" uuid NOT NULL,
	"number" text NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"amount_cents" integer NOT NULL,
	"currency" text DEFAULT 'usd' NOT NULL,
	"period" text NOT NULL,
	"reason" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"failure_reason" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"charging_at" timestamp with time zone,
	"action_required" boolean DEFAULT false NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"provider_charge_id" text,
	"paid_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "billing_local_charges" (
	"id" text PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"idempotency_key" text NOT NULL,
	"customer_id" text NOT NULL,
	"payment_method_id" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"currency" text NOT NULL,
	"status" text NOT NULL,
	"failure_message" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "billing_local_payment_methods" (
	"id" text PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"customer_id" text NOT NULL,
	"brand" text NOT NULL,
	"last4" text NOT NULL,
	"exp_month" integer NOT NULL,
	"exp_year" integer NOT NULL,
	"behaviour" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "billing_accounts" ADD CONSTRAINT "billing_accounts_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoice_lines" ADD CONSTRAINT "invoice_lines_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoice_lines" ADD CONSTRAINT "invoice_lines_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "billing_local_charges" ADD CONSTRAINT "billing_local_charges_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "billing_local_payment_methods" ADD CONSTRAINT "billing_local_payment_methods_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "invoice_lines_target_uq" ON "invoice_lines" USING btree ("target_id");--> statement-breakpoint
CREATE INDEX "invoice_lines_invoice_idx" ON "invoice_lines" USING btree ("invoice_id");--> statement-breakpoint
CREATE INDEX "invoice_lines_client_idx" ON "invoice_lines" USING btree ("client_id");--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_idempotency_key_uq" ON "invoices" USING btree ("idempotency_key");--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_client_number_uq" ON "invoices" USING btree ("client_id","number");--> statement-breakpoint
CREATE INDEX "invoices_client_created_idx" ON "invoices" USING btree ("client_id","created_at");--> statement-breakpoint
CREATE INDEX "invoices_status_next_idx" ON "invoices" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE UNIQUE INDEX "billing_local_charges_key_uq" ON "billing_local_charges" USING btree ("idempotency_key");--> statement-breakpoint
CREATE INDEX "billing_local_charges_customer_idx" ON "billing_local_charges" USING btree ("customer_id");--> statement-breakpoint
CREATE INDEX "billing_local_pm_customer_idx" ON "billing_local_payment_methods" USING btree ("customer_id");