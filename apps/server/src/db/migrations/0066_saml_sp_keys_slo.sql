ALTER TABLE "saml_configs" ADD COLUMN "sp_private_key_enc" text;--> statement-breakpoint
ALTER TABLE "saml_configs" ADD COLUMN "sp_certificate" text;--> statement-breakpoint
ALTER TABLE "saml_configs" ADD COLUMN "sign_requests" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "saml_configs" ADD COLUMN "idp_wants_signed_requests" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "saml_configs" ADD COLUMN "require_encryption" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "saml_configs" ADD COLUMN "slo_url" text;--> statement-breakpoint
ALTER TABLE "saml_configs" ADD COLUMN "metadata_fetched_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "saml_configs" ADD COLUMN "metadata_checked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "saml_configs" ADD COLUMN "metadata_error" text;