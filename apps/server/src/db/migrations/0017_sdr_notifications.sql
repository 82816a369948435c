CREATE TABLE "sdr_notification_settings" (
	"sales_rep_id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"super_email" boolean DEFAULT false NOT NULL,
	"digest" text DEFAULT 'off' NOT NULL,
	"last_digest_at" timestamp with time zone,
	"updated_by" uuid,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sdr_notification_settings" ADD CONSTRAINT "sdr_notification_settings_sales_rep_id_sales_reps_id_fk" FOREIGN KEY ("sales_rep_id") REFERENCES "public"."sales_reps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sdr_notification_settings" ADD CONSTRAINT "sdr_notification_settings_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sdr_notification_settings" ADD CONSTRAINT "sdr_notification_settings_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sdr_notification_settings_client_idx" ON "sdr_notification_settings" USING btree ("client_id");