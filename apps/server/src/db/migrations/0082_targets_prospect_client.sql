-- A prospect's targets of one client, with their ids, from the index alone: alignment counts the
-- engaged prospects of its page's accounts by probing each prospect's targets (reports/accounts.ts
-- `engagedProspects`, about 4,000 probes a page at the reports bench's size), and with the prospect
-- alone in the index each probe also read the target's row for its client and id. With both in the
-- index the probe is index-only where the table's pages are all-visible (vacuumed), which took
-- about a quarter off alignment's statement (issue 43, bench/README.md). The same leading column, so
-- every lookup by prospect still has it. drizzle-kit cannot express INCLUDE (db/schema/integrations.ts
-- says so beside the index).
DROP INDEX "targets_prospect_idx";--> statement-breakpoint
CREATE INDEX "targets_prospect_idx" ON "targets" USING btree ("prospect_id","client_id") INCLUDE ("id");
