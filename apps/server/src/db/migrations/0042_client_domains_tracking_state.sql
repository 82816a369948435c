-- The click tag's cached target state holds the client's verified domains (issue 37.8: a click
-- goes straight only to them), so the tracking state version moves when they change: a domain
-- added or removed, or its verification gained or lost. A re-check that only writes when it looked
-- (last_checked_at, its message) moves nothing.
CREATE CONSTRAINT TRIGGER tracking_state_client_domains
  AFTER INSERT OR DELETE ON client_domains DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  EXECUTE FUNCTION tracking_state_changed();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER tracking_state_client_domains_update
  AFTER UPDATE OF client_id, domain, verified_at ON client_domains
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN ((OLD.client_id, OLD.domain, OLD.verified_at IS NULL) IS DISTINCT FROM (NEW.client_id, NEW.domain, NEW.verified_at IS NULL))
  EXECUTE FUNCTION tracking_state_changed();
