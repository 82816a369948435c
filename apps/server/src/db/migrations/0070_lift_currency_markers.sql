-- Stored lift outcomes (0068): every opportunity written marks its client, with or without a company
-- (a null ref names no target). The main currency the outcomes are counted in depends on every
-- opportunity of the client, so a refresh with no marker can trust the stored one instead of counting
-- the client's opportunities by currency on every report (about 50 ms at the reports bench's size).
CREATE OR REPLACE FUNCTION lift_opportunities_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO lift_dirty (client_id, kind, ref)
    SELECT DISTINCT n.client_id, 'company', n.company_id
      FROM new_rows n
      JOIN (SELECT c.client_id FROM (SELECT DISTINCT client_id FROM new_rows) c
             WHERE EXISTS (SELECT 1 FROM targets t WHERE t.client_id = c.client_id AND t.holdout_group IS NOT NULL)) h
        ON h.client_id = n.client_id;
  ELSE
    INSERT INTO lift_dirty (client_id, kind, ref)
    SELECT DISTINCT o.client_id, 'company', o.company_id
      FROM old_rows o
      JOIN (SELECT c.client_id FROM (SELECT DISTINCT client_id FROM old_rows) c
             WHERE EXISTS (SELECT 1 FROM targets t WHERE t.client_id = c.client_id AND t.holdout_group IS NOT NULL)) h
        ON h.client_id = o.client_id;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION lift_opportunity_row_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO lift_dirty (client_id, kind, ref)
  SELECT DISTINCT x.client_id, 'company', x.company_id
    FROM (VALUES (OLD.client_id, OLD.company_id), (NEW.client_id, NEW.company_id)) AS x(client_id, company_id)
   WHERE EXISTS (SELECT 1 FROM targets t WHERE t.client_id = x.client_id AND t.holdout_group IS NOT NULL);
  RETURN NULL;
END $$;
