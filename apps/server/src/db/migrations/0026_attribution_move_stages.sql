ALTER TABLE "stage_move_attribution" ADD COLUMN "from_stage_id" uuid;--> statement-breakpoint
ALTER TABLE "stage_move_attribution" ADD COLUMN "to_stage_id" uuid;--> statement-breakpoint
UPDATE "stage_move_attribution" m SET "from_stage_id" = h."from_stage_id", "to_stage_id" = h."to_stage_id"
  FROM "opportunity_stage_history" h WHERE h."id" = m."history_id";
--> statement-breakpoint
-- Counting a range's progress reads this index alone (an index-only scan), not the moves' rows.
DROP INDEX "stage_move_attribution_engaged_idx";
--> statement-breakpoint
CREATE INDEX "stage_move_attribution_engaged_idx" ON "stage_move_attribution" USING btree ("client_id","changed_at")
  INCLUDE ("from_stage_id", "to_stage_id", "opportunity_id", "history_id", "engaged_at")
  WHERE "stage_move_attribution"."engaged_at" is not null;
--> statement-breakpoint
-- A move whose stages change (a stage removed from the catalogue sets them null) is computed again.
CREATE OR REPLACE FUNCTION attribution_moves_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO attribution_dirty (client_id, kind) SELECT DISTINCT client_id, 'new' FROM new_rows;
  ELSE
    INSERT INTO attribution_dirty (client_id, kind, ref)
    SELECT DISTINCT n.client_id, 'opportunity', n.opportunity_id
      FROM new_rows n JOIN old_rows o ON o.id = n.id
     WHERE (n.changed_at, n.opportunity_id, n.from_stage_id, n.to_stage_id)
           IS DISTINCT FROM (o.changed_at, o.opportunity_id, o.from_stage_id, o.to_stage_id);
  END IF;
  RETURN NULL;
END $$;
