CREATE TABLE "stored_blobs" (
	"key" text NOT NULL,
	"part" integer NOT NULL,
	"bytes" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "stored_blobs_key_part_pk" PRIMARY KEY("key","part")
);
