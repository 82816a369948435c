-- signals/utilization and the dashboard read a range's superprospects with their prospect (to join
-- the CRM contacts that were contacted after): with prospect_id in the index that read is
-- index-only instead of a heap fetch per superprospect, or a scan of every target of the client.
-- drizzle-kit cannot express INCLUDE (db/schema/integrations.ts says so beside the index).
DROP INDEX IF EXISTS "targets_client_super_idx";--> statement-breakpoint
CREATE INDEX "targets_client_super_idx" ON "targets" USING btree ("client_id","super_date","id") INCLUDE ("prospect_id") WHERE "targets"."super_date" is not null;
