CREATE TABLE "attribution_dirty" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"ref" uuid,
	"domain" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "attribution_state" (
	"client_id" uuid PRIMARY KEY NOT NULL,
	"window_days" integer NOT NULL,
	"refreshed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "opportunity_attribution" (
	"opportunity_id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"company_id" uuid,
	"window_days" integer NOT NULL,
	"generated_at" timestamp with time zone,
	"generated_prospects" integer DEFAULT 0 NOT NULL,
	"influenced_prospects" integer DEFAULT 0 NOT NULL,
	"final" boolean NOT NULL,
	"computed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "stage_move_attribution" (
	"history_id" uuid PRIMARY KEY NOT NULL,
	"client_id" uuid NOT NULL,
	"opportunity_id" uuid NOT NULL,
	"company_id" uuid,
	"window_days" integer NOT NULL,
	"changed_at" timestamp with time zone NOT NULL,
	"engaged_at" timestamp with time zone,
	"final" boolean NOT NULL,
	"computed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "attribution_state" ADD CONSTRAINT "attribution_state_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "opportunity_attribution" ADD CONSTRAINT "opportunity_attribution_opportunity_id_opportunities_id_fk" FOREIGN KEY ("opportunity_id") REFERENCES "public"."opportunities"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "opportunity_attribution" ADD CONSTRAINT "opportunity_attribution_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stage_move_attribution" ADD CONSTRAINT "stage_move_attribution_history_id_opportunity_stage_history_id_fk" FOREIGN KEY ("history_id") REFERENCES "public"."opportunity_stage_history"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stage_move_attribution" ADD CONSTRAINT "stage_move_attribution_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "attribution_dirty_client_idx" ON "attribution_dirty" USING btree ("client_id");--> statement-breakpoint
CREATE INDEX "opportunity_attribution_client_idx" ON "opportunity_attribution" USING btree ("client_id");--> statement-breakpoint
CREATE INDEX "opportunity_attribution_company_idx" ON "opportunity_attribution" USING btree ("company_id");--> statement-breakpoint
CREATE INDEX "opportunity_attribution_unsettled_idx" ON "opportunity_attribution" USING btree ("client_id") WHERE not "opportunity_attribution"."final";--> statement-breakpoint
CREATE INDEX "stage_move_attribution_engaged_idx" ON "stage_move_attribution" USING btree ("client_id","changed_at") WHERE "stage_move_attribution"."engaged_at" is not null;--> statement-breakpoint
CREATE INDEX "stage_move_attribution_company_idx" ON "stage_move_attribution" USING btree ("company_id");--> statement-breakpoint
CREATE INDEX "stage_move_attribution_opportunity_idx" ON "stage_move_attribution" USING btree ("opportunity_id");--> statement-breakpoint
CREATE INDEX "stage_move_attribution_unsettled_idx" ON "stage_move_attribution" USING btree ("client_id") WHERE not "stage_move_attribution"."final";--> statement-breakpoint
-- Stored attribution (docs/reports.md "Stored attribution"): statement-level triggers record in
-- attribution_dirty what a write may have changed; the next report of the client recomputes only that.
-- They write no row for writes that cannot change an attribution (a new prospect has no events yet;
-- an event written now is after every settled moment), so syncs, imports and the tracking path stay lean.
CREATE FUNCTION attribution_opportunities_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO attribution_dirty (client_id, kind) SELECT DISTINCT client_id, 'new' FROM new_rows;
  ELSE
    INSERT INTO attribution_dirty (client_id, kind, ref)
    SELECT n.client_id, 'opportunity', n.id
      FROM new_rows n JOIN old_rows o ON o.id = n.id
     WHERE (n.crm_created_at, n.close_date, n.is_won, n.company_id, n.is_deleted, n.client_id)
           IS DISTINCT FROM (o.crm_created_at, o.close_date, o.is_won, o.company_id, o.is_deleted, o.client_id)
        OR (n.is_won AND n.close_date IS NULL
            AND (n.crm_updated_at, n.updated_at) IS DISTINCT FROM (o.crm_updated_at, o.updated_at));
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER attribution_opportunities_insert AFTER INSERT ON opportunities
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION attribution_opportunities_changed();
--> statement-breakpoint
CREATE TRIGGER attribution_opportunities_update AFTER UPDATE ON opportunities
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION attribution_opportunities_changed();
--> statement-breakpoint
CREATE FUNCTION attribution_moves_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO attribution_dirty (client_id, kind) SELECT DISTINCT client_id, 'new' FROM new_rows;
  ELSE
    INSERT INTO attribution_dirty (client_id, kind, ref)
    SELECT DISTINCT n.client_id, 'opportunity', n.opportunity_id
      FROM new_rows n JOIN old_rows o ON o.id = n.id
     WHERE (n.changed_at, n.opportunity_id) IS DISTINCT FROM (o.changed_at, o.opportunity_id);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER attribution_moves_insert AFTER INSERT ON opportunity_stage_history
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION attribution_moves_changed();
--> statement-breakpoint
CREATE TRIGGER attribution_moves_update AFTER UPDATE ON opportunity_stage_history
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION attribution_moves_changed();
--> statement-breakpoint
-- A prospect's ties are its company and its e-mail's domain (matched to CRM accounts and company websites).
CREATE FUNCTION attribution_prospects_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    INSERT INTO attribution_dirty (client_id, kind, ref, domain)
    SELECT DISTINCT x.client_id, x.kind, x.ref, x.domain
      FROM new_rows n JOIN old_rows o ON o.id = n.id
     CROSS JOIN LATERAL (VALUES
       (o.client_id, 'company', o.company_id, NULL::text),
       (n.client_id, 'company', n.company_id, NULL::text),
       (o.client_id, 'domain', NULL::uuid, lower(split_part(o.email, '@', 2))),
       (n.client_id, 'domain', NULL::uuid, lower(split_part(n.email, '@', 2)))
     ) AS x(client_id, kind, ref, domain)
     WHERE (n.company_id, lower(n.email), n.client_id) IS DISTINCT FROM (o.company_id, lower(o.email), o.client_id)
       AND (x.ref IS NOT NULL OR coalesce(x.domain, '') <> '');
  ELSE
    INSERT INTO attribution_dirty (client_id, kind, ref, domain)
    SELECT DISTINCT x.client_id, x.kind, x.ref, x.domain
      FROM old_rows o
     CROSS JOIN LATERAL (VALUES
       (o.client_id, 'company', o.company_id, NULL::text),
       (o.client_id, 'domain', NULL::uuid, lower(split_part(o.email, '@', 2)))
     ) AS x(client_id, kind, ref, domain)
     WHERE x.ref IS NOT NULL OR coalesce(x.domain, '') <> '';
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER attribution_prospects_update AFTER UPDATE ON prospects
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION attribution_prospects_changed();
--> statement-breakpoint
CREATE TRIGGER attribution_prospects_delete AFTER DELETE ON prospects
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION attribution_prospects_changed();
--> statement-breakpoint
-- A target ties a prospect's events to it: moved to another prospect or deleted, its events move too.
CREATE FUNCTION attribution_targets_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    INSERT INTO attribution_dirty (client_id, kind)
    SELECT DISTINCT n.client_id, 'all'
      FROM new_rows n JOIN old_rows o ON o.id = n.id
     WHERE (n.prospect_id, n.client_id) IS DISTINCT FROM (o.prospect_id, o.client_id);
  ELSE
    INSERT INTO attribution_dirty (client_id, kind, ref)
    SELECT DISTINCT o.client_id, 'prospect', o.prospect_id FROM old_rows o;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER attribution_targets_update AFTER UPDATE ON targets
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION attribution_targets_changed();
--> statement-breakpoint
CREATE TRIGGER attribution_targets_delete AFTER DELETE ON targets
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION attribution_targets_changed();
--> statement-breakpoint
-- A CRM contact ties its prospect to its account's company.
CREATE FUNCTION attribution_contacts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO attribution_dirty (client_id, kind, ref)
    SELECT DISTINCT n.client_id, 'company', a.company_id
      FROM new_rows n JOIN crm_accounts a ON a.id = n.account_id
     WHERE n.prospect_id IS NOT NULL AND a.company_id IS NOT NULL;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO attribution_dirty (client_id, kind, ref)
    SELECT DISTINCT a.client_id, 'company', a.company_id
      FROM new_rows n JOIN old_rows o ON o.id = n.id
      JOIN crm_accounts a ON a.id IN (n.account_id, o.account_id)
     WHERE (n.prospect_id, n.account_id, n.is_deleted) IS DISTINCT FROM (o.prospect_id, o.account_id, o.is_deleted)
       AND a.company_id IS NOT NULL;
  ELSE
    INSERT INTO attribution_dirty (client_id, kind, ref)
    SELECT DISTINCT a.client_id, 'company', a.company_id
      FROM old_rows o JOIN crm_accounts a ON a.id = o.account_id
     WHERE o.prospect_id IS NOT NULL AND a.company_id IS NOT NULL;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER attribution_contacts_insert AFTER INSERT ON crm_contacts
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION attribution_contacts_changed();
--> statement-breakpoint
CREATE TRIGGER attribution_contacts_update AFTER UPDATE ON crm_contacts
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION attribution_contacts_changed();
--> statement-breakpoint
CREATE TRIGGER attribution_contacts_delete AFTER DELETE ON crm_contacts
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION attribution_contacts_changed();
--> statement-breakpoint
-- A CRM account ties its contacts and its domain's prospects to its company.
CREATE FUNCTION attribution_accounts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO attribution_dirty (client_id, kind, ref)
    SELECT DISTINCT n.client_id, 'company', n.company_id FROM new_rows n WHERE n.company_id IS NOT NULL;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO attribution_dirty (client_id, kind, ref)
    SELECT DISTINCT x.client_id, 'company', x.ref
      FROM new_rows n JOIN old_rows o ON o.id = n.id
     CROSS JOIN LATERAL (VALUES (o.client_id, o.company_id), (n.client_id, n.company_id)) AS x(client_id, ref)
     WHERE (n.company_id, n.domain, n.is_deleted) IS DISTINCT FROM (o.company_id, o.domain, o.is_deleted)
       AND x.ref IS NOT NULL;
  ELSE
    INSERT INTO attribution_dirty (client_id, kind, ref)
    SELECT DISTINCT o.client_id, 'company', o.company_id FROM old_rows o WHERE o.company_id IS NOT NULL;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER attribution_accounts_insert AFTER INSERT ON crm_accounts
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION attribution_accounts_changed();
--> statement-breakpoint
CREATE TRIGGER attribution_accounts_update AFTER UPDATE ON crm_accounts
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION attribution_accounts_changed();
--> statement-breakpoint
CREATE TRIGGER attribution_accounts_delete AFTER DELETE ON crm_accounts
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION attribution_accounts_changed();
--> statement-breakpoint
-- A company's website ties the prospects of its domain to it.
CREATE FUNCTION attribution_companies_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO attribution_dirty (client_id, kind, ref)
  SELECT DISTINCT n.client_id, 'company', n.id
    FROM new_rows n JOIN old_rows o ON o.id = n.id
   WHERE n.website IS DISTINCT FROM o.website;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER attribution_companies_update AFTER UPDATE ON companies
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION attribution_companies_changed();
--> statement-breakpoint
-- The tracking path writes events at "now", after every settled moment; an event written more than
-- five minutes after it happened (the demo's history, an import, a consumer catching up) may fall
-- before one, so the accounts of its prospect are computed again.
CREATE FUNCTION attribution_events_backdated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO attribution_dirty (client_id, kind, ref)
  SELECT DISTINCT t.client_id, 'prospect', t.prospect_id
    FROM (SELECT DISTINCT target_id FROM new_rows WHERE occurred_at < now() - interval '5 minutes') n
    JOIN targets t ON t.id = n.target_id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER attribution_events_insert AFTER INSERT ON engagement_events
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION attribution_events_backdated();
