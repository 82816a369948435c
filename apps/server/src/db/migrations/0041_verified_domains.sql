CREATE TABLE "sso_identities" (
	"client_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"issuer" text NOT NULL,
	"subject" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sso_identities_client_id_user_id_pk" PRIMARY KEY("client_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "client_domains" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"client_id" uuid NOT NULL,
	"domain" text NOT NULL,
	"verified_at" timestamp with time zone,
	"last_checked_at" timestamp with time zone,
	"last_check_message" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "domain_reservations" (
	"domain" text PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"reserved_until" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "clients" ADD COLUMN "domain_token" text DEFAULT replace(gen_random_uuid()::text, '-', '') NOT NULL;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "scope_client_id" uuid;--> statement-breakpoint
ALTER TABLE "sso_identities" ADD CONSTRAINT "sso_identities_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sso_identities" ADD CONSTRAINT "sso_identities_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "client_domains" ADD CONSTRAINT "client_domains_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "domain_reservations" ADD CONSTRAINT "domain_reservations_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "sso_identities_subject_uq" ON "sso_identities" USING btree ("client_id","issuer","subject");--> statement-breakpoint
CREATE UNIQUE INDEX "client_domains_client_domain_uq" ON "client_domains" USING btree ("client_id","domain");--> statement-breakpoint
CREATE INDEX "client_domains_checked_idx" ON "client_domains" USING btree ("last_checked_at");--> statement-breakpoint
CREATE INDEX "client_domains_verified_idx" ON "client_domains" USING btree ("client_id") WHERE "client_domains"."verified_at" is not null;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_scope_client_id_clients_id_fk" FOREIGN KEY ("scope_client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sessions_scope_client_idx" ON "sessions" USING btree ("scope_client_id") WHERE "sessions"."scope_client_id" is not null;