CREATE TABLE "ad_field_settings" (
	"integration_id" integer PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"image_field" text,
	"click_field" text,
	"enabled" boolean DEFAULT false NOT NULL,
	"is_writing" boolean DEFAULT false NOT NULL,
	"pending_count" integer DEFAULT 0 NOT NULL,
	"last_written_at" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ad_field_values" (
	"integration_id" integer NOT NULL,
	"record_id" text NOT NULL,
	"client_id" uuid NOT NULL,
	"token" text,
	"signature" text NOT NULL,
	"failed_reason" text,
	"written_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ad_field_values_integration_id_record_id_pk" PRIMARY KEY("integration_id","record_id")
);
--> statement-breakpoint
ALTER TABLE "ad_field_settings" ADD CONSTRAINT "ad_field_settings_integration_id_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ad_field_settings" ADD CONSTRAINT "ad_field_settings_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ad_field_values" ADD CONSTRAINT "ad_field_values_integration_id_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ad_field_values" ADD CONSTRAINT "ad_field_values_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ad_field_settings_client_idx" ON "ad_field_settings" USING btree ("client_id");--> statement-breakpoint
CREATE INDEX "ad_field_values_client_idx" ON "ad_field_values" USING btree ("client_id");