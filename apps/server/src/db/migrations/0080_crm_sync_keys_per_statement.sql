-- Four keys checked once a statement instead of once a row (issue 43; bench/README.md "CRM sync,
-- 2026-12-07"). A first CRM sync writes contacts and a list's members in batches of 2,000 rows that
-- all name one integration (contacts) or one list (members), at most 2,000 accounts and contacts, and
-- each foreign key ran a query per row to check and lock its parent: on a Salesforce sync of 100,000
-- contacts and a 100,000-member campaign, a fifth to a third of the database's CPU. The four keys of
-- those rows are replaced by triggers that keep their guarantees (MATCH SIMPLE: a null is not checked):
-- - an insert checks each statement's distinct parents once, taking the key's lock (FOR KEY SHARE: a
--   concurrent delete of a parent waits for the writer, then acts on its rows too, and a writer that
--   comes after the delete finds no parent and fails); a row moved to another parent is checked as
--   the key did;
-- - deleting parents deletes their rows (integration, list: the keys' ON DELETE CASCADE) or empties
--   the column (account, contact: ON DELETE SET NULL), once a statement; renumbering a parent that
--   has rows fails (ON UPDATE NO ACTION), and so does truncating one that has rows.
-- Errors keep the keys' SQLSTATE (23503) and constraint names. The parents' ids are never updated.
ALTER TABLE "crm_contacts" DROP CONSTRAINT "crm_contacts_integration_id_integrations_id_fk";
--> statement-breakpoint
ALTER TABLE "crm_contacts" DROP CONSTRAINT "crm_contacts_account_id_crm_accounts_id_fk";
--> statement-breakpoint
ALTER TABLE "crm_list_members" DROP CONSTRAINT "crm_list_members_list_id_crm_lists_id_fk";
--> statement-breakpoint
ALTER TABLE "crm_list_members" DROP CONSTRAINT "crm_list_members_contact_id_crm_contacts_id_fk";
--> statement-breakpoint
-- On the row's table, after an insert: TG_ARGV = column, parent table, constraint name.
CREATE FUNCTION crm_key_rows_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  wanted integer;
  found integer;
BEGIN
  EXECUTE format('SELECT count(DISTINCT %I) FROM new_rows', TG_ARGV[0]) INTO wanted;
  IF wanted = 0 THEN
    RETURN NULL;
  END IF;
  EXECUTE format('SELECT count(*) FROM (SELECT 1 FROM %I p WHERE p.id IN (SELECT %I FROM new_rows) FOR KEY SHARE OF p) s',
                 TG_ARGV[1], TG_ARGV[0]) INTO found;
  IF found < wanted THEN
    RAISE EXCEPTION 'insert or update on table "%" violates foreign key constraint "%"', TG_TABLE_NAME, TG_ARGV[2]
      USING ERRCODE = 'foreign_key_violation', TABLE = TG_TABLE_NAME, CONSTRAINT = TG_ARGV[2];
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- On the row's table, for a row whose parent changed to another (not null): the same arguments.
CREATE FUNCTION crm_key_row_moved() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  found integer;
BEGIN
  EXECUTE format('SELECT count(*) FROM (SELECT 1 FROM %I p WHERE p.id = ($1).%I FOR KEY SHARE OF p) s',
                 TG_ARGV[1], TG_ARGV[0]) INTO found USING NEW;
  IF found = 0 THEN
    RAISE EXCEPTION 'insert or update on table "%" violates foreign key constraint "%"', TG_TABLE_NAME, TG_ARGV[2]
      USING ERRCODE = 'foreign_key_violation', TABLE = TG_TABLE_NAME, CONSTRAINT = TG_ARGV[2];
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- On the parent's table, after a delete: TG_ARGV = the rows' table, column, 'cascade' or 'set null'.
CREATE FUNCTION crm_key_parents_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_ARGV[2] = 'cascade' THEN
    EXECUTE format('DELETE FROM %I WHERE %I = ANY (ARRAY(SELECT id FROM old_rows))', TG_ARGV[0], TG_ARGV[1]);
  ELSE
    EXECUTE format('UPDATE %I SET %I = NULL WHERE %I = ANY (ARRAY(SELECT id FROM old_rows))',
                   TG_ARGV[0], TG_ARGV[1], TG_ARGV[1]);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- On the parent's table, for a renumbered parent or after a truncate: TG_ARGV = the rows' table,
-- column, constraint name. Refused while rows name the parent (a truncate: while there are rows).
CREATE FUNCTION crm_key_parent_refused() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  named boolean;
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE %I IS NOT NULL)', TG_ARGV[0], TG_ARGV[1]) INTO named;
  ELSE
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE %I = $1)', TG_ARGV[0], TG_ARGV[1]) INTO named USING OLD.id;
  END IF;
  IF named THEN
    RAISE EXCEPTION '% on table "%" violates foreign key constraint "%" on table "%"',
                    lower(TG_OP), TG_TABLE_NAME, TG_ARGV[2], TG_ARGV[0]
      USING ERRCODE = 'foreign_key_violation', TABLE = TG_ARGV[0], CONSTRAINT = TG_ARGV[2];
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER crm_contacts_integration_insert AFTER INSERT ON crm_contacts REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION crm_key_rows_inserted('integration_id', 'integrations', 'crm_contacts_integration_id_integrations_id_fk');
--> statement-breakpoint
CREATE TRIGGER crm_contacts_integration_update AFTER UPDATE OF integration_id ON crm_contacts FOR EACH ROW
  WHEN (NEW.integration_id IS DISTINCT FROM OLD.integration_id)
  EXECUTE FUNCTION crm_key_row_moved('integration_id', 'integrations', 'crm_contacts_integration_id_integrations_id_fk');
--> statement-breakpoint
CREATE TRIGGER crm_contacts_integration_parent_delete AFTER DELETE ON integrations REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION crm_key_parents_deleted('crm_contacts', 'integration_id', 'cascade');
--> statement-breakpoint
CREATE TRIGGER crm_contacts_integration_parent_update AFTER UPDATE OF id ON integrations FOR EACH ROW
  WHEN (NEW.id IS DISTINCT FROM OLD.id)
  EXECUTE FUNCTION crm_key_parent_refused('crm_contacts', 'integration_id', 'crm_contacts_integration_id_integrations_id_fk');
--> statement-breakpoint
CREATE TRIGGER crm_contacts_integration_parent_truncate AFTER TRUNCATE ON integrations
  FOR EACH STATEMENT EXECUTE FUNCTION crm_key_parent_refused('crm_contacts', 'integration_id', 'crm_contacts_integration_id_integrations_id_fk');
--> statement-breakpoint
CREATE TRIGGER crm_contacts_account_insert AFTER INSERT ON crm_contacts REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION crm_key_rows_inserted('account_id', 'crm_accounts', 'crm_contacts_account_id_crm_accounts_id_fk');
--> statement-breakpoint
CREATE TRIGGER crm_contacts_account_update AFTER UPDATE OF account_id ON crm_contacts FOR EACH ROW
  WHEN (NEW.account_id IS DISTINCT FROM OLD.account_id AND NEW.account_id IS NOT NULL)
  EXECUTE FUNCTION crm_key_row_moved('account_id', 'crm_accounts', 'crm_contacts_account_id_crm_accounts_id_fk');
--> statement-breakpoint
CREATE TRIGGER crm_contacts_account_parent_delete AFTER DELETE ON crm_accounts REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION crm_key_parents_deleted('crm_contacts', 'account_id', 'set null');
--> statement-breakpoint
CREATE TRIGGER crm_contacts_account_parent_update AFTER UPDATE OF id ON crm_accounts FOR EACH ROW
  WHEN (NEW.id IS DISTINCT FROM OLD.id)
  EXECUTE FUNCTION crm_key_parent_refused('crm_contacts', 'account_id', 'crm_contacts_account_id_crm_accounts_id_fk');
--> statement-breakpoint
CREATE TRIGGER crm_contacts_account_parent_truncate AFTER TRUNCATE ON crm_accounts
  FOR EACH STATEMENT EXECUTE FUNCTION crm_key_parent_refused('crm_contacts', 'account_id', 'crm_contacts_account_id_crm_accounts_id_fk');
--> statement-breakpoint
CREATE TRIGGER crm_list_members_list_insert AFTER INSERT ON crm_list_members REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION crm_key_rows_inserted('list_id', 'crm_lists', 'crm_list_members_list_id_crm_lists_id_fk');
--> statement-breakpoint
CREATE TRIGGER crm_list_members_list_update AFTER UPDATE OF list_id ON crm_list_members FOR EACH ROW
  WHEN (NEW.list_id IS DISTINCT FROM OLD.list_id)
  EXECUTE FUNCTION crm_key_row_moved('list_id', 'crm_lists', 'crm_list_members_list_id_crm_lists_id_fk');
--> statement-breakpoint
CREATE TRIGGER crm_list_members_list_parent_delete AFTER DELETE ON crm_lists REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION crm_key_parents_deleted('crm_list_members', 'list_id', 'cascade');
--> statement-breakpoint
CREATE TRIGGER crm_list_members_list_parent_update AFTER UPDATE OF id ON crm_lists FOR EACH ROW
  WHEN (NEW.id IS DISTINCT FROM OLD.id)
  EXECUTE FUNCTION crm_key_parent_refused('crm_list_members', 'list_id', 'crm_list_members_list_id_crm_lists_id_fk');
--> statement-breakpoint
CREATE TRIGGER crm_list_members_list_parent_truncate AFTER TRUNCATE ON crm_lists
  FOR EACH STATEMENT EXECUTE FUNCTION crm_key_parent_refused('crm_list_members', 'list_id', 'crm_list_members_list_id_crm_lists_id_fk');
--> statement-breakpoint
CREATE TRIGGER crm_list_members_contact_insert AFTER INSERT ON crm_list_members REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION crm_key_rows_inserted('contact_id', 'crm_contacts', 'crm_list_members_contact_id_crm_contacts_id_fk');
--> statement-breakpoint
CREATE TRIGGER crm_list_members_contact_update AFTER UPDATE OF contact_id ON crm_list_members FOR EACH ROW
  WHEN (NEW.contact_id IS DISTINCT FROM OLD.contact_id AND NEW.contact_id IS NOT NULL)
  EXECUTE FUNCTION crm_key_row_moved('contact_id', 'crm_contacts', 'crm_list_members_contact_id_crm_contacts_id_fk');
--> statement-breakpoint
CREATE TRIGGER crm_list_members_contact_parent_delete AFTER DELETE ON crm_contacts REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION crm_key_parents_deleted('crm_list_members', 'contact_id', 'set null');
--> statement-breakpoint
CREATE TRIGGER crm_list_members_contact_parent_update AFTER UPDATE OF id ON crm_contacts FOR EACH ROW
  WHEN (NEW.id IS DISTINCT FROM OLD.id)
  EXECUTE FUNCTION crm_key_parent_refused('crm_list_members', 'contact_id', 'crm_list_members_contact_id_crm_contacts_id_fk');
--> statement-breakpoint
CREATE TRIGGER crm_list_members_contact_parent_truncate AFTER TRUNCATE ON crm_contacts
  FOR EACH STATEMENT EXECUTE FUNCTION crm_key_parent_refused('crm_list_members', 'contact_id', 'crm_list_members_contact_id_crm_contacts_id_fk');
