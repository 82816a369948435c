-- Each client's live opportunities counted per currency, kept by the database (docs/reports.md "Ranges
-- and amounts"; apps/server/src/modules/reports/repository.ts `mainCurrency`). The main currency (the
-- one most of the client's opportunities are in) is asked by the summary, value_report, pipeline/generated,
-- the revenue by month and the lift before their totals: it counted the client's opportunities by
-- currency at every call (100,000 at the reports bench's size, tens of ms on the summary's longest path).
-- Kept exact by triggers in the writers' transactions: inserts and deletes per statement (transition
-- tables), an update per row only when it changes the client, the currency or the deletion flag.
CREATE TABLE "opportunity_currency_counts" (
	"client_id" uuid NOT NULL,
	"currency" text NOT NULL,
	"n" bigint NOT NULL,
	CONSTRAINT "opportunity_currency_counts_pk" PRIMARY KEY("client_id","currency"),
	CONSTRAINT "opportunity_currency_counts_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO "opportunity_currency_counts" (client_id, currency, n)
SELECT client_id, currency, count(*) FROM opportunities WHERE NOT is_deleted GROUP BY client_id, currency;
--> statement-breakpoint
CREATE FUNCTION opportunity_currency_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO opportunity_currency_counts AS c (client_id, currency, n)
  SELECT client_id, currency, count(*) FROM new_rows WHERE NOT is_deleted
   GROUP BY client_id, currency ORDER BY client_id, currency
  ON CONFLICT (client_id, currency) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION opportunity_currency_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO opportunity_currency_counts AS c (client_id, currency, n)
  SELECT client_id, currency, -count(*) FROM old_rows WHERE NOT is_deleted
   GROUP BY client_id, currency ORDER BY client_id, currency
  ON CONFLICT (client_id, currency) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION opportunity_currency_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO opportunity_currency_counts AS c (client_id, currency, n)
  SELECT x.client_id, x.currency, sum(x.n) FROM (
    SELECT OLD.client_id, OLD.currency, -1 WHERE NOT OLD.is_deleted
    UNION ALL
    SELECT NEW.client_id, NEW.currency, 1 WHERE NOT NEW.is_deleted
  ) x(client_id, currency, n)
   GROUP BY 1, 2 HAVING sum(x.n) <> 0 ORDER BY 1, 2
  ON CONFLICT (client_id, currency) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER opportunity_currency_counts_insert AFTER INSERT ON opportunities
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION opportunity_currency_counts_inserted();
--> statement-breakpoint
CREATE TRIGGER opportunity_currency_counts_delete AFTER DELETE ON opportunities
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION opportunity_currency_counts_deleted();
--> statement-breakpoint
CREATE TRIGGER opportunity_currency_counts_update AFTER UPDATE OF client_id, currency, is_deleted ON opportunities
  FOR EACH ROW WHEN ((NEW.client_id, NEW.currency, NEW.is_deleted) IS DISTINCT FROM (OLD.client_id, OLD.currency, OLD.is_deleted))
  EXECUTE FUNCTION opportunity_currency_counts_updated();
