ALTER TABLE "cadences" ADD COLUMN "holdout_percent" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "cadences" ADD COLUMN "holdout_seed" text DEFAULT gen_random_uuid()::text NOT NULL;--> statement-breakpoint
ALTER TABLE "targets" ADD COLUMN "holdout_group" text;--> statement-breakpoint
ALTER TABLE "targets" ADD COLUMN "holdout_percent" smallint;--> statement-breakpoint
CREATE INDEX "targets_holdout_idx" ON "targets" USING btree ("client_id","cadence_id") WHERE "targets"."holdout_group" is not null;--> statement-breakpoint
ALTER TABLE "cadences" ADD CONSTRAINT "cadences_holdout_percent_ck" CHECK ("cadences"."holdout_percent" between 0 and 50);--> statement-breakpoint
ALTER TABLE "targets" ADD CONSTRAINT "targets_holdout_group_ck" CHECK ("targets"."holdout_group" in ('exposed', 'held_out'));--> statement-breakpoint
-- Issue 45: a target is assigned once, when inserted, to exposed or held out by a keyed hash of its id
-- (its cadence's seed) against its cadence's share then. The first 4 bytes of SHA-256(seed ':' id)
-- read as an unsigned integer u; held out when u / 2^32 < share / 100 (incrementality/assignment.ts
-- computes the same). Updates never move it; a cadence with no share leaves it null.
CREATE FUNCTION targets_assign_holdout() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  pct smallint;
  seed text;
  h bytea;
BEGIN
  SELECT c.holdout_percent, c.holdout_seed INTO pct, seed FROM cadences c WHERE c.id = NEW.cadence_id;
  IF pct IS NULL OR pct = 0 THEN
    NEW.holdout_group := NULL;
    NEW.holdout_percent := NULL;
    RETURN NEW;
  END IF;
  h := sha256(convert_to(seed || ':' || NEW.id::text, 'UTF8'));
  NEW.holdout_percent := pct;
  NEW.holdout_group := CASE
    WHEN ((get_byte(h, 0)::bigint << 24) | (get_byte(h, 1)::bigint << 16) | (get_byte(h, 2)::bigint << 8)
          | get_byte(h, 3)::bigint) * 100 < pct::bigint * 4294967296 THEN 'held_out'
    ELSE 'exposed' END;
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER "targets_assign_holdout" BEFORE INSERT ON "targets"
  FOR EACH ROW EXECUTE FUNCTION targets_assign_holdout();
--> statement-breakpoint
-- The assignment never changes: an update that names the columns keeps the stored values.
CREATE FUNCTION targets_keep_holdout() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.holdout_group := OLD.holdout_group;
  NEW.holdout_percent := OLD.holdout_percent;
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER "targets_keep_holdout" BEFORE UPDATE OF "holdout_group", "holdout_percent" ON "targets"
  FOR EACH ROW EXECUTE FUNCTION targets_keep_holdout();
