CREATE TABLE "saml_assertions" (
	"issuer" text NOT NULL,
	"assertion_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "saml_assertions_issuer_assertion_id_pk" PRIMARY KEY("issuer","assertion_id")
);
--> statement-breakpoint
CREATE TABLE "saml_configs" (
	"client_id" uuid PRIMARY KEY NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"idp_entity_id" text NOT NULL,
	"sso_url" text NOT NULL,
	"certificates" text[] NOT NULL,
	"metadata_url" text,
	"name_id_format" text NOT NULL,
	"email_attribute" text,
	"first_name_attribute" text,
	"last_name_attribute" text,
	"jit_enabled" boolean DEFAULT false NOT NULL,
	"jit_role" text DEFAULT 'grey_viewer' NOT NULL,
	"idp_initiated" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "saml_configs" ADD CONSTRAINT "saml_configs_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "saml_assertions_expires_idx" ON "saml_assertions" USING btree ("expires_at");