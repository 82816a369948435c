-- pipeline/priority ranks the client's open opportunities by their account's engagement (reports/
-- signals.ts): it read every opportunity's whole row to rank 50,000 of them (a scan of the table, 31
-- ms of the statement at the reports bench's size) and counted them with a window over every ranked
-- row. This index holds what the ranking reads (account, amount, id) for the open ones only, so the
-- ranking and the count are index-only (4 ms each). Its predicate is reports/repository.ts
-- `openOpportunity` word for word, with the live rows' test, so the planner can prove the query's
-- filter implies it. Declared here only: Drizzle cannot express INCLUDE.
CREATE INDEX "opportunities_client_open_idx" ON "opportunities" USING btree ("client_id") INCLUDE ("company_id","amount_cents","id") WHERE NOT "is_deleted" AND NOT "is_closed" AND NOT ("stage_id" IS NULL AND "stage" ILIKE 'closed%');
