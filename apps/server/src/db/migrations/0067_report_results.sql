CREATE TABLE "report_results" (
	"client_id" uuid NOT NULL,
	"report" text NOT NULL,
	"key" text NOT NULL,
	"computed_at" timestamp with time zone NOT NULL,
	"body" jsonb NOT NULL,
	CONSTRAINT "report_results_client_id_report_key_pk" PRIMARY KEY("client_id","report","key")
);
--> statement-breakpoint
ALTER TABLE "report_results" ADD CONSTRAINT "report_results_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;