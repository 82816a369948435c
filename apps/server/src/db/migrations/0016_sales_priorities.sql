CREATE TABLE "sales_priorities" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"client_id" uuid NOT NULL,
	"company_id" uuid,
	"target_id" uuid,
	"marked_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sales_priorities_one_of" CHECK (("sales_priorities"."company_id" is null) <> ("sales_priorities"."target_id" is null))
);
--> statement-breakpoint
ALTER TABLE "sales_priorities" ADD CONSTRAINT "sales_priorities_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sales_priorities" ADD CONSTRAINT "sales_priorities_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sales_priorities" ADD CONSTRAINT "sales_priorities_target_id_targets_id_fk" FOREIGN KEY ("target_id") REFERENCES "public"."targets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sales_priorities" ADD CONSTRAINT "sales_priorities_marked_by_users_id_fk" FOREIGN KEY ("marked_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sales_priorities_client_idx" ON "sales_priorities" USING btree ("client_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sales_priorities_company_uq" ON "sales_priorities" USING btree ("client_id","company_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sales_priorities_target_uq" ON "sales_priorities" USING btree ("client_id","target_id");