CREATE TABLE "auth_failures" (
	"scope" text NOT NULL,
	"key" text NOT NULL,
	"failures" integer NOT NULL,
	"window_started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	CONSTRAINT "auth_failures_scope_key_pk" PRIMARY KEY("scope","key")
);
