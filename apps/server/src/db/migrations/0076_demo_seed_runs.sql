-- The versions of the demo seed run to their end (apps/server/src/db/seed.ts `DEMO_SEED_VERSION`): a
-- start that finds the current one skips the seed's ten steps, which each looked for their rows again
-- (0.4–1.1 s of every embedded restart, bench/README.md "Embedded mode"). A new version runs the steps
-- once more (each adds only what is missing), then is recorded.
CREATE TABLE "demo_seed_runs" (
	"version" integer PRIMARY KEY NOT NULL,
	"seeded_at" timestamp with time zone DEFAULT now() NOT NULL
);
