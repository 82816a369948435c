CREATE TABLE "landing_domain_checks" (
	"client_id" uuid PRIMARY KEY NOT NULL,
	"checked_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
DROP INDEX "client_settings_landing_domain_uq";--> statement-breakpoint
ALTER TABLE "landing_domain_checks" ADD CONSTRAINT "landing_domain_checks_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "client_settings_verified_landing_domain_uq" ON "client_settings" USING btree ("landing_page_domain") WHERE "client_settings"."landing_page_domain_verified_at" is not null;