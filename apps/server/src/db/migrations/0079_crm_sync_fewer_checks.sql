-- Fewer checks per row written by a CRM sync (issue 43; bench/README.md "CRM sync, 2026-12-06 (late
-- night)"). A first Salesforce sync of 100,000 contacts and a 100,000-member campaign spent most of its
-- database CPU writing rows, and a third of a row's cost was its foreign-key checks. Two of them repeated
-- a cascade another key already gives: a contact goes with its integration and a list member with its list
-- (both deleted with the client), and the client id written is always the integration's. Without that key
-- nothing looks list members up by client alone, so its index goes too. Most contacts match no prospect:
-- the prospect index keeps only those that do (every lookup is by a prospect id).
ALTER TABLE "crm_contacts" DROP CONSTRAINT "crm_contacts_client_id_clients_id_fk";
--> statement-breakpoint
ALTER TABLE "crm_list_members" DROP CONSTRAINT "crm_list_members_client_id_clients_id_fk";
--> statement-breakpoint
DROP INDEX "crm_list_members_client_idx";--> statement-breakpoint
DROP INDEX "crm_contacts_prospect_idx";--> statement-breakpoint
CREATE INDEX "crm_contacts_prospect_idx" ON "crm_contacts" USING btree ("prospect_id") WHERE "crm_contacts"."prospect_id" is not null;