import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { CLUSTER_READY, startCluster } from './cluster-kit.ts';

/** The rows of each table the demo seed makes a fixed number of. */
const FIXED = {
  users: 3,
  clients: 3,
  memberships: 5,
  integrations: 4,
  file_imports: 4,
  invoices: 4,
  cohorts: 4,
  campaigns: 2,
  journeys: 2,
  landing_pages: 2,
  crm_lists: 4,
};

async function count(databaseUrl: string, table: string): Promise<number> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    return (await c.query<{ n: number }>(`select count(*)::int as n from ${table}`)).rows[0]!.n;
  } finally {
    await c.end();
  }
}

/**
 * Issue 41 item 1. Before: three instances started together on an empty database with the demo
 * seed crashed in 2 runs of 3 (integrations_client_source_uq from the CRM demo seed) and the
 * survivors left 1,636 engagement events where one seed makes about 1,500.
 */
describe.skipIf(!CLUSTER_READY)('three instances starting together on one empty PostgreSQL', () => {
  it('all start, and the demo is seeded exactly once', async () => {
    const cluster = await startCluster(3, { SEED_DEMO: 'true', LOG_LEVEL: 'info' });
    for (const s of cluster.instances) expect((await fetch(`${s.url}/readyz`)).status).toBe(200);

    const summaries = cluster.instances.map((s) => {
      const line = s
        .output()
        .split('\n')
        .find((l) => l.includes('"msg":"demo seed"'));
      return (JSON.parse(line!) as { seed: { users: boolean; events: number; invoices: number } }).seed;
    });
    // One instance seeded; the others waited for it and found everything there.
    const seeders = summaries.filter((s) => s.users);
    expect(seeders).toHaveLength(1);
    expect(summaries.filter((s) => s.events > 0 || s.invoices > 0)).toHaveLength(1);

    for (const [table, n] of Object.entries(FIXED)) {
      expect({ table, n: await count(cluster.databaseUrl, table) }).toEqual({ table, n });
    }
    // Every event stored is one the seeding instance reported making: counted ones in
    // engagement_events, the demo's machine, bot and scanner ones in uncounted_events (decision 0017).
    const stored =
      (await count(cluster.databaseUrl, 'engagement_events')) +
      (await count(cluster.databaseUrl, 'uncounted_events'));
    expect(stored).toBe(seeders[0]!.events);
    // pg-boss's schema once, each queue once.
    expect(await count(cluster.databaseUrl, 'pgboss.version')).toBe(1);
  }, 120_000);
});
