-- The stored attribution's UPDATE triggers (0023, 0026) were statement-level with transition tables:
-- every UPDATE of those tables copied its rows into them, the tracking path's counter update of
-- targets and the journey job's million-row updates included. Row-level triggers limited to the
-- columns that matter (UPDATE OF) and filtered by WHEN are not even queued for other updates.
DROP TRIGGER attribution_opportunities_update ON opportunities;
--> statement-breakpoint
DROP TRIGGER attribution_moves_update ON opportunity_stage_history;
--> statement-breakpoint
DROP TRIGGER attribution_prospects_update ON prospects;
--> statement-breakpoint
DROP TRIGGER attribution_targets_update ON targets;
--> statement-breakpoint
DROP TRIGGER attribution_contacts_update ON crm_contacts;
--> statement-breakpoint
DROP TRIGGER attribution_accounts_update ON crm_accounts;
--> statement-breakpoint
DROP TRIGGER attribution_companies_update ON companies;
--> statement-breakpoint
CREATE FUNCTION attribution_opportunity_row_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO attribution_dirty (client_id, kind, ref) VALUES (NEW.client_id, 'opportunity', NEW.id);
  IF OLD.client_id IS DISTINCT FROM NEW.client_id THEN
    INSERT INTO attribution_dirty (client_id, kind, ref) VALUES (OLD.client_id, 'opportunity', OLD.id);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER attribution_opportunities_update
  AFTER UPDATE OF crm_created_at, close_date, is_won, company_id, is_deleted, client_id, crm_updated_at, updated_at
  ON opportunities FOR EACH ROW
  WHEN ((NEW.crm_created_at, NEW.close_date, NEW.is_won, NEW.company_id, NEW.is_deleted, NEW.client_id)
          IS DISTINCT FROM (OLD.crm_created_at, OLD.close_date, OLD.is_won, OLD.company_id, OLD.is_deleted, OLD.client_id)
        OR (NEW.is_won AND NEW.close_date IS NULL
            AND (NEW.crm_updated_at, NEW.updated_at) IS DISTINCT FROM (OLD.crm_updated_at, OLD.updated_at)))
  EXECUTE FUNCTION attribution_opportunity_row_changed();
--> statement-breakpoint
CREATE FUNCTION attribution_move_row_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO attribution_dirty (client_id, kind, ref) VALUES (NEW.client_id, 'opportunity', NEW.opportunity_id);
  IF (OLD.client_id, OLD.opportunity_id) IS DISTINCT FROM (NEW.client_id, NEW.opportunity_id) THEN
    INSERT INTO attribution_dirty (client_id, kind, ref) VALUES (OLD.client_id, 'opportunity', OLD.opportunity_id);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER attribution_moves_update
  AFTER UPDATE OF changed_at, opportunity_id, from_stage_id, to_stage_id, client_id
  ON opportunity_stage_history FOR EACH ROW
  WHEN ((NEW.changed_at, NEW.opportunity_id, NEW.from_stage_id, NEW.to_stage_id, NEW.client_id)
        IS DISTINCT FROM (OLD.changed_at, OLD.opportunity_id, OLD.from_stage_id, OLD.to_stage_id, OLD.client_id))
  EXECUTE FUNCTION attribution_move_row_changed();
--> statement-breakpoint
-- A prospect's ties are its company and its e-mail's domain: both the old and the new are marked.
CREATE FUNCTION attribution_prospect_row_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO attribution_dirty (client_id, kind, ref, domain)
  SELECT DISTINCT x.client_id, x.kind, x.ref, x.domain
    FROM (VALUES
      (OLD.client_id, 'company', OLD.company_id, NULL::text),
      (NEW.client_id, 'company', NEW.company_id, NULL::text),
      (OLD.client_id, 'domain', NULL::uuid, lower(split_part(OLD.email, '@', 2))),
      (NEW.client_id, 'domain', NULL::uuid, lower(split_part(NEW.email, '@', 2)))
    ) AS x(client_id, kind, ref, domain)
   WHERE x.ref IS NOT NULL OR coalesce(x.domain, '') <> '';
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER attribution_prospects_update
  AFTER UPDATE OF company_id, email, client_id ON prospects FOR EACH ROW
  WHEN ((NEW.company_id, lower(NEW.email), NEW.client_id) IS DISTINCT FROM (OLD.company_id, lower(OLD.email), OLD.client_id))
  EXECUTE FUNCTION attribution_prospect_row_changed();
--> statement-breakpoint
CREATE FUNCTION attribution_target_row_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO attribution_dirty (client_id, kind) VALUES (NEW.client_id, 'all');
  IF OLD.client_id IS DISTINCT FROM NEW.client_id THEN
    INSERT INTO attribution_dirty (client_id, kind) VALUES (OLD.client_id, 'all');
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER attribution_targets_update
  AFTER UPDATE OF prospect_id, client_id ON targets FOR EACH ROW
  WHEN ((NEW.prospect_id, NEW.client_id) IS DISTINCT FROM (OLD.prospect_id, OLD.client_id))
  EXECUTE FUNCTION attribution_target_row_changed();
--> statement-breakpoint
-- A CRM contact ties its prospect to its account's company: the old and the new account's are marked.
CREATE FUNCTION attribution_contact_row_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO attribution_dirty (client_id, kind, ref)
  SELECT DISTINCT a.client_id, 'company', a.company_id
    FROM crm_accounts a
   WHERE a.id IN (OLD.account_id, NEW.account_id) AND a.company_id IS NOT NULL;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER attribution_contacts_update
  AFTER UPDATE OF prospect_id, account_id, is_deleted ON crm_contacts FOR EACH ROW
  WHEN ((NEW.prospect_id, NEW.account_id, NEW.is_deleted) IS DISTINCT FROM (OLD.prospect_id, OLD.account_id, OLD.is_deleted))
  EXECUTE FUNCTION attribution_contact_row_changed();
--> statement-breakpoint
CREATE FUNCTION attribution_account_row_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO attribution_dirty (client_id, kind, ref)
  SELECT DISTINCT x.client_id, 'company', x.ref
    FROM (VALUES (OLD.client_id, OLD.company_id), (NEW.client_id, NEW.company_id)) AS x(client_id, ref)
   WHERE x.ref IS NOT NULL;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER attribution_accounts_update
  AFTER UPDATE OF company_id, domain, is_deleted, client_id ON crm_accounts FOR EACH ROW
  WHEN ((NEW.company_id, NEW.domain, NEW.is_deleted, NEW.client_id) IS DISTINCT FROM (OLD.company_id, OLD.domain, OLD.is_deleted, OLD.client_id))
  EXECUTE FUNCTION attribution_account_row_changed();
--> statement-breakpoint
CREATE FUNCTION attribution_company_row_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO attribution_dirty (client_id, kind, ref) VALUES (NEW.client_id, 'company', NEW.id);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER attribution_companies_update
  AFTER UPDATE OF website ON companies FOR EACH ROW
  WHEN (NEW.website IS DISTINCT FROM OLD.website)
  EXECUTE FUNCTION attribution_company_row_changed();
