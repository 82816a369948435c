-- Trigram search for the prospects list (PostgreSQL contrib; PGlite loads it in db/client.ts).
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE INDEX "companies_client_name_idx" ON "companies" USING btree ("client_id",lower("name"),"id");--> statement-breakpoint
CREATE INDEX "companies_name_trgm_idx" ON "companies" USING gin ("name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "prospects_client_name_idx" ON "prospects" USING btree ("client_id",lower("first_name"),lower("last_name"),"id");--> statement-breakpoint
CREATE INDEX "prospects_client_email_idx" ON "prospects" USING btree ("client_id",("email" is null),lower(coalesce("email", '')),"id");--> statement-breakpoint
CREATE INDEX "prospects_client_title_idx" ON "prospects" USING btree ("client_id",lower("title"),"id");--> statement-breakpoint
CREATE INDEX "prospects_client_company_idx" ON "prospects" USING btree ("client_id","company_id","id");--> statement-breakpoint
CREATE INDEX "prospects_search_trgm_idx" ON "prospects" USING gin (("first_name" || ' ' || "last_name" || ' ' || coalesce("email", '') || ' ' || "title") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "targets_sales_rep_idx" ON "targets" USING btree ("sales_rep_id");--> statement-breakpoint
CREATE INDEX "targets_client_impressions_idx" ON "targets" USING btree ("client_id","impressions","id");--> statement-breakpoint
CREATE INDEX "targets_client_super_idx" ON "targets" USING btree ("client_id","super_date","id") WHERE "targets"."super_date" is not null;