import { integer, pgTable, timestamp } from 'drizzle-orm/pg-core';

/**
 * The versions of the demo seed run to their end on this database (`DEMO_SEED_VERSION` in
 * db/seed.ts): a start that finds the current one skips the seed's steps, each of which would
 * otherwise look for its rows again (0.4–1.1 s of every embedded restart, bench/README.md
 * "Embedded mode").
 */
export const demoSeedRuns = pgTable('demo_seed_runs', {
  version: integer('version').primaryKey(),
  seededAt: timestamp('seeded_at', { withTimezone: true }).notNull().defaultNow(),
});
