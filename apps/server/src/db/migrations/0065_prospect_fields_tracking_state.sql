-- Issue 43: the ad tag's cached target state carries the prospect's fields an ad may name (first and
-- last name, title, company name), so an ad that names the prospect is served from the state's kept
-- image key instead of a read of the prospect per request (tracking/ad-image.ts). Changing any of
-- them, or a company's name, moves the client's state version (migration 0036's mechanism, like a
-- prospect's address in 0056): every instance's cached states of the client are refused at their
-- next append and read again, so no instance serves the old name after the change commits.
CREATE CONSTRAINT TRIGGER tracking_state_prospect_fields
  AFTER UPDATE OF first_name, last_name, title, company_id ON prospects DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN ((OLD.first_name, OLD.last_name, OLD.title, OLD.company_id)
        IS DISTINCT FROM (NEW.first_name, NEW.last_name, NEW.title, NEW.company_id))
  EXECUTE FUNCTION tracking_state_changed();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER tracking_state_company_name
  AFTER UPDATE OF name ON companies DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (OLD.name IS DISTINCT FROM NEW.name)
  EXECUTE FUNCTION tracking_state_changed();
