-- A cadence's entries in impressions order, index-only (INCLUDE is hand-written: drizzle-kit has no syntax for it).
CREATE INDEX "targets_cadence_impressions_idx" ON "targets" USING btree ("cadence_id","impressions","id") INCLUDE ("prospect_id","client_id");
