CREATE TABLE "email_snippet_tests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"client_id" uuid NOT NULL,
	"cadence_id" integer NOT NULL,
	"target_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"sent_to" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"opened_at" timestamp with time zone,
	"clicked_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "email_snippet_tests" ADD CONSTRAINT "email_snippet_tests_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_snippet_tests" ADD CONSTRAINT "email_snippet_tests_cadence_id_cadences_id_fk" FOREIGN KEY ("cadence_id") REFERENCES "public"."cadences"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_snippet_tests" ADD CONSTRAINT "email_snippet_tests_target_id_targets_id_fk" FOREIGN KEY ("target_id") REFERENCES "public"."targets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_snippet_tests" ADD CONSTRAINT "email_snippet_tests_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "email_snippet_tests_user_idx" ON "email_snippet_tests" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "email_snippet_tests_cadence_idx" ON "email_snippet_tests" USING btree ("cadence_id","created_at");--> statement-breakpoint
CREATE INDEX "engagement_events_email_idx" ON "engagement_events" USING btree ("cadence_id","occurred_at") WHERE "engagement_events"."type" = 'impression' and "engagement_events"."size" = 'email';