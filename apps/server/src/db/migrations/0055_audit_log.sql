CREATE TABLE "audit_chain_heads" (
	"client_id" uuid PRIMARY KEY NOT NULL,
	"seq" bigint DEFAULT 0 NOT NULL,
	"hash" text NOT NULL,
	"anchor_seq" bigint DEFAULT 0 NOT NULL,
	"anchor_hash" text NOT NULL,
	"anchored_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "audit_log" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"client_id" uuid NOT NULL,
	"seq" bigint NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"actor_user_id" uuid,
	"actor_email" text,
	"action" text NOT NULL,
	"target_kind" text,
	"target_id" text,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"ip" text,
	"user_agent" text,
	"prev_hash" text NOT NULL,
	"hash" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "audit_chain_heads" ADD CONSTRAINT "audit_chain_heads_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "audit_log_client_seq_idx" ON "audit_log" USING btree ("client_id","seq");--> statement-breakpoint
CREATE INDEX "audit_log_client_actor_idx" ON "audit_log" USING btree ("client_id","actor_user_id","seq");--> statement-breakpoint
CREATE INDEX "audit_log_client_action_idx" ON "audit_log" USING btree ("client_id","action","seq");--> statement-breakpoint
CREATE INDEX "audit_log_client_created_idx" ON "audit_log" USING btree ("client_id","created_at");
--> statement-breakpoint
-- Append-only (docs/decisions/0028-audit-log.md): no entry is ever changed; one is deleted only when
-- its client is (the cascade), or by the retention purge, which first moves the client's anchor to
-- the last entry it drops and says so in the transaction-local setting rally.audit_purge.
CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF NOT EXISTS (SELECT 1 FROM clients WHERE id = OLD.client_id) THEN
      RETURN OLD;
    END IF;
    IF current_setting('rally.audit_purge', true) = 'on' AND OLD.seq <= (
      SELECT anchor_seq FROM audit_chain_heads WHERE client_id = OLD.client_id
    ) THEN
      RETURN OLD;
    END IF;
    RAISE EXCEPTION 'audit_log is append-only: entries are deleted only by the retention purge, at or below the anchor'
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  RAISE EXCEPTION 'audit_log is append-only: entries cannot be changed'
    USING ERRCODE = 'insufficient_privilege';
END $$;
--> statement-breakpoint
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
--> statement-breakpoint
CREATE FUNCTION audit_log_no_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only: it cannot be truncated' USING ERRCODE = 'insufficient_privilege';
END $$;
--> statement-breakpoint
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION audit_log_no_truncate();
