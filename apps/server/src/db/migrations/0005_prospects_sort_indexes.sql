DROP INDEX "targets_client_impressions_idx";--> statement-breakpoint
DROP INDEX "prospects_client_email_idx";--> statement-breakpoint
CREATE INDEX "prospects_client_no_email_idx" ON "prospects" USING btree ("client_id","id") WHERE "prospects"."email" is null;--> statement-breakpoint
CREATE INDEX "targets_impressions_nonsuper_idx" ON "targets" USING btree ("client_id","impressions","id") WHERE "targets"."super_date" is null;--> statement-breakpoint
CREATE INDEX "targets_impressions_super_idx" ON "targets" USING btree ("client_id","impressions","id") WHERE "targets"."super_date" is not null;--> statement-breakpoint
CREATE INDEX "prospects_client_email_idx" ON "prospects" USING btree ("client_id",lower("email"),"id") WHERE "prospects"."email" is not null;