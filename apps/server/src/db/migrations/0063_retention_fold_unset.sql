-- On a connection that has never set rally.retention_fold, current_setting(..., true) is NULL, and
-- NOT (TG_OP = 'DELETE' AND NULL) is NULL, so IF took the delete for the fold's own and did not take
-- it from a folded day's rollups (a delete there kept counting: seen on PostgreSQL, whose pool has
-- connections that never ran a fold; PGlite's one connection always had). Unset means off.
CREATE OR REPLACE FUNCTION engagement_rollups_invalidate() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
  g record;
  sign int := CASE WHEN TG_OP = 'DELETE' THEN -1 ELSE 1 END;
BEGIN
  FOR r IN
    SELECT c.client_id, (c.occurred_at AT TIME ZONE 'UTC')::date AS day, min(c.occurred_at) AS first_at
      FROM changed c GROUP BY 1, 2 ORDER BY 1, 2
  LOOP
    PERFORM pg_advisory_xact_lock_shared(engagement_rollup_key(r.client_id, r.day));
    IF EXISTS (SELECT 1 FROM engagement_rollup_days d
                WHERE d.client_id = r.client_id AND d.day = r.day AND d.folded) THEN
      IF NOT (TG_OP = 'DELETE' AND coalesce(current_setting('rally.retention_fold', true), '') = 'on') THEN
        FOR g IN
          SELECT c.content_id, c.type, count(*) AS n FROM changed c
           WHERE c.client_id = r.client_id AND (c.occurred_at AT TIME ZONE 'UTC')::date = r.day
           GROUP BY 1, 2
        LOOP
          PERFORM engagement_rollup_add(r.client_id, r.day, g.content_id, g.type, sign * g.n);
        END LOOP;
      END IF;
    ELSE
      DELETE FROM engagement_rollup_days d WHERE d.client_id = r.client_id AND d.day = r.day;
    END IF;
    DELETE FROM account_engagement_today t
     WHERE t.client_id = r.client_id AND t.day = r.day AND t.computed_to > r.first_at;
  END LOOP;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION target_engagement_last_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(current_setting('rally.retention_fold', true), '') = 'on' THEN
    RETURN NULL;
  END IF;
  PERFORM target_engagement_last_recount(
    (SELECT coalesce(jsonb_agg(jsonb_build_object('c', c.client_id, 't', c.target_id)), '[]') FROM changed c));
  RETURN NULL;
END
$$;
