ALTER TABLE "crm_accounts" ADD COLUMN "is_deleted" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "crm_contacts" ADD COLUMN "is_deleted" boolean DEFAULT false NOT NULL;