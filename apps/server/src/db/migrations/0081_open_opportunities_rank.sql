-- The client's open opportunities, as pipeline/priority ranks them (reports/signals.ts) and as
-- dashboard/stats sums them per currency: both read every open opportunity's whole row (a scan of
-- the table, 22-31 ms at the reports bench's size), and priority counted them with a window over
-- every ranked row. This index holds what they read (account, amount, id, currency) for the open ones
-- only, so the ranking, its count and the sums are index-only (4-8 ms each). Its predicate is
-- reports/repository.ts `openOpportunity` word for word, with the live rows' test, so the planner can
-- prove the queries' filter implies it. Declared here only: Drizzle cannot express INCLUDE.
CREATE INDEX "opportunities_client_open_idx" ON "opportunities" USING btree ("client_id") INCLUDE ("company_id","amount_cents","id","currency") WHERE NOT "is_deleted" AND NOT "is_closed" AND NOT ("stage_id" IS NULL AND "stage" ILIKE 'closed%');
