CREATE TABLE "suppressions" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "suppressions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"client_id" uuid NOT NULL,
	"email_hash" text NOT NULL,
	"email" text,
	"source" text NOT NULL,
	"reason" text DEFAULT '' NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"removed_at" timestamp with time zone,
	"removed_by" uuid,
	"removed_reason" text
);
--> statement-breakpoint
ALTER TABLE "file_imports" ADD COLUMN "suppressed_rows" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "suppressions" ADD CONSTRAINT "suppressions_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "suppressions" ADD CONSTRAINT "suppressions_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "suppressions" ADD CONSTRAINT "suppressions_removed_by_users_id_fk" FOREIGN KEY ("removed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "suppressions_active_uq" ON "suppressions" USING btree ("client_id","email_hash") WHERE "suppressions"."removed_at" is null;--> statement-breakpoint
CREATE INDEX "suppressions_client_idx" ON "suppressions" USING btree ("client_id","id");--> statement-breakpoint
-- Issue 44, decision 0027: the tag's cached state reads whether the target's person is suppressed
-- (tracking/repository.ts), so adding or removing an entry moves the client's state version, and so
-- does a prospect's changed address (it may now be, or no longer be, on the list).
CREATE CONSTRAINT TRIGGER tracking_state_suppressions
  AFTER INSERT OR UPDATE OR DELETE ON suppressions DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  EXECUTE FUNCTION tracking_state_changed();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER tracking_state_prospect_email
  AFTER UPDATE OF email ON prospects DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (OLD.email IS DISTINCT FROM NEW.email)
  EXECUTE FUNCTION tracking_state_changed();
