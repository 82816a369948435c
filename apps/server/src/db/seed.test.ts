import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_ROLES } from '@rally/shared';
import { createTestApp } from '../../test/helpers.ts';
import { verifyPassword } from '../lib/passwords.ts';
import { startDemoMeta } from '../demo-networks/index.ts';
import {
  adAudiences,
  adCampaignStats,
  adCampaigns,
  adNetworkConnections,
  cadences,
  clients,
  demoSeedRuns,
  integrations,
  memberships,
  opportunities,
  prospects,
  salesReps,
  targets,
  users,
} from './schema/index.ts';
import {
  DEMO_CLIENTS,
  DEMO_EMAIL,
  DEMO_PASSWORD,
  DEMO_SEED_VERSION,
  seedDemo,
  seedDemoAll,
  seedDemoData,
  seedDemoSdrRep,
} from './seed.ts';

async function counts(db: Awaited<ReturnType<typeof createTestApp>>['db']) {
  const [u] = await db.select({ n: sql<number>`count(*)::int` }).from(users);
  const [c] = await db.select({ n: sql<number>`count(*)::int` }).from(clients);
  const [m] = await db.select({ n: sql<number>`count(*)::int` }).from(memberships);
  return { users: u?.n, clients: c?.n, memberships: m?.n };
}

describe('demo seed', () => {
  it('creates the demo user, an agency with two client companies, and memberships with different roles', async () => {
    const app = await createTestApp();
    expect(await seedDemo(app.db)).toEqual({ created: true });

    const [demo] = await app.db.select().from(users).where(eq(users.email, DEMO_EMAIL));
    expect(demo).toBeDefined();
    expect(await verifyPassword(demo!.passwordHash!, DEMO_PASSWORD)).toBe(true);
    expect(demo!.passwordHash).toMatch(/^\$argon2id\$/);

    const mine = await app.db.select().from(memberships).where(eq(memberships.userId, demo!.id));
    expect(new Set(mine.map((m) => m.role))).toEqual(new Set(['purple_owner', 'green_manager']));
    expect(mine.filter((m) => m.isDefault)).toHaveLength(1);
    const manager = mine.find((m) => m.role === 'green_manager');
    expect(manager?.permissions).toEqual([...BUILT_IN_ROLES.green_manager]);

    const children = await app.db.select().from(clients).where(eq(clients.parentId, DEMO_CLIENTS.agency.id));
    expect(children.map((c) => c.name).sort()).toEqual(['Acme Robotics', 'Globex Logistics']);
  });

  it('is idempotent: a second run adds nothing', async () => {
    const app = await createTestApp();
    await seedDemo(app.db);
    const before = await counts(app.db);
    expect(await seedDemo(app.db)).toEqual({ created: false });
    expect(await counts(app.db)).toEqual(before);
  });

  it('loads the bundled CSVs through the real file import for Northwind and Acme, once (issue 6)', async () => {
    const app = await createTestApp();
    await seedDemo(app.db);
    const first = await seedDemoData(app);
    expect(first.imported).toBeGreaterThan(0);
    const n = async (table: typeof prospects | typeof targets | typeof cadences | typeof opportunities) =>
      (
        await app.db
          .select({ n: sql<number>`count(*)::int` })
          .from(table)
          .where(eq(table.clientId, DEMO_CLIENTS.acme.id))
      )[0]!.n;
    const before = {
      prospects: await n(prospects),
      targets: await n(targets),
      cadences: await n(cadences),
      revenue: await n(opportunities),
    };
    expect(before.prospects).toBeGreaterThanOrEqual(50);
    expect(before.cadences).toBe(2);
    expect(before.revenue).toBeGreaterThanOrEqual(10);
    const fileforce = await app.db.select().from(integrations).where(eq(integrations.source, 'fileforce'));
    expect(fileforce.map((i) => i.clientId).sort()).toEqual(
      [DEMO_CLIENTS.agency.id, DEMO_CLIENTS.acme.id].sort(),
    );
    // A restart imports nothing again; Globex stays empty for onboarding.
    expect(await seedDemoData(app)).toEqual({ imported: 0 });
    expect({
      prospects: await n(prospects),
      targets: await n(targets),
      cadences: await n(cadences),
      revenue: await n(opportunities),
    }).toEqual(before);
  });

  it("makes the demo SDR one of Acme's reps, with their prospects (issue 42 item 9), once", async () => {
    const app = await createTestApp();
    await seedDemo(app.db);
    await seedDemoData(app);
    expect(await seedDemoSdrRep(app.db)).toEqual({ renamed: 1 });
    expect(await seedDemoSdrRep(app.db)).toEqual({ renamed: 0 });
    const [rep] = await app.db.select().from(salesReps).where(eq(salesReps.email, 'sam@rally.test'));
    expect(rep).toMatchObject({ clientId: DEMO_CLIENTS.acme.id, firstName: 'Sam', lastName: 'Okafor' });
    const [{ n } = { n: 0 }] = await app.db
      .select({ n: sql<number>`count(*)::int` })
      .from(targets)
      .where(eq(targets.salesRepId, rep!.id));
    expect(n).toBeGreaterThan(0);
  });

  it('connects Northwind to the demo Meta with two campaigns and four weeks of pulled results, once (decision 0037)', async () => {
    const networks = await startDemoMeta();
    try {
      const app = await createTestApp({
        workers: false,
        env: {
          META_APP_ID: networks.meta.appId,
          META_APP_SECRET: networks.meta.appSecret,
          META_GRAPH_URL: networks.meta.url,
          META_AUTH_URL: networks.meta.url,
          META_API_VERSION: networks.meta.version,
        },
      });
      const first = await seedDemoAll(app, { networks });
      expect(first.networkCampaigns).toBe(2);
      expect(first.networkStats).toBeGreaterThan(40);

      const agency = DEMO_CLIENTS.agency.id;
      const [conn] = await app.db
        .select()
        .from(adNetworkConnections)
        .where(eq(adNetworkConnections.clientId, agency));
      expect(conn).toMatchObject({
        network: 'meta',
        isActive: true,
        adAccountName: 'Northwind Ads',
        pageName: 'Northwind Agency',
      });
      // Acme is left for the e2e walk that connects Meta by hand.
      expect(
        await app.db
          .select()
          .from(adNetworkConnections)
          .where(eq(adNetworkConnections.clientId, DEMO_CLIENTS.acme.id)),
      ).toHaveLength(0);
      const [audience] = await app.db.select().from(adAudiences).where(eq(adAudiences.clientId, agency));
      expect(audience).toMatchObject({ sourceKind: 'cohort', state: 'ready' });
      const campaigns = await app.db.select().from(adCampaigns).where(eq(adCampaigns.clientId, agency));
      expect(campaigns.map((c) => c.status).sort()).toEqual(['active', 'paused']);
      expect(campaigns.every((c) => c.statsPulledAt && !c.statsError)).toBe(true);

      // The live campaign's results reach from four weeks ago to today, each ad's day once; the
      // paused one stopped 12 days ago.
      const days = async (status: 'active' | 'paused') => {
        const c = campaigns.find((x) => x.status === status)!;
        const [r] = await app.db
          .select({
            first: sql<string>`min(${adCampaignStats.day})::text`,
            last: sql<string>`max(${adCampaignStats.day})::text`,
            rows: sql<number>`count(*)::int`,
            distinct: sql<number>`count(distinct (${adCampaignStats.networkAdId}, ${adCampaignStats.day}))::int`,
            spend: sql<number>`sum(${adCampaignStats.spendMinor})::int`,
            clicks: sql<number>`sum(${adCampaignStats.clicks})::int`,
          })
          .from(adCampaignStats)
          .where(eq(adCampaignStats.campaignId, c.id));
        return r!;
      };
      const iso = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
      const live = await days('active');
      expect(live).toMatchObject({ first: iso(28), last: iso(0), rows: 58 });
      expect(live.distinct).toBe(live.rows);
      expect(live.spend).toBeGreaterThan(0);
      expect(live.clicks).toBeGreaterThan(0);
      const paused = await days('paused');
      expect(paused).toMatchObject({ first: iso(26), last: iso(12), rows: 30 });

      // A restart: the same seed adds nothing, and a pull after it stores each day once again.
      const count = async () =>
        (
          await app.db
            .select({ n: sql<number>`count(*)::int` })
            .from(adCampaignStats)
            .where(eq(adCampaignStats.clientId, agency))
        )[0]!.n;
      const before = await count();
      // The seed's version is recorded once its steps have run, and a restart that finds it skips them.
      expect(await app.db.select({ version: demoSeedRuns.version }).from(demoSeedRuns)).toEqual([
        { version: DEMO_SEED_VERSION },
      ]);
      const second = await seedDemoAll(app, { networks });
      expect(second).toMatchObject({ networkCampaigns: 0, networkStats: 0 });
      // A new version (the marker absent) runs the steps again, which add nothing either.
      await app.db.delete(demoSeedRuns);
      expect(await seedDemoAll(app, { networks })).toEqual(second);
      expect(await app.db.select({ version: demoSeedRuns.version }).from(demoSeedRuns)).toEqual([
        { version: DEMO_SEED_VERSION },
      ]);
      expect(await app.db.select().from(adCampaigns).where(eq(adCampaigns.clientId, agency))).toHaveLength(2);
      expect(
        await app.db
          .select()
          .from(adNetworkConnections)
          .where(and(eq(adNetworkConnections.clientId, agency), eq(adNetworkConnections.network, 'meta'))),
      ).toHaveLength(1);
      const live2 = campaigns.find((x) => x.status === 'active')!;
      expect((await app.adCampaignStats.pull(live2.id))?.rows).toBeGreaterThan(0);
      expect(await count()).toBe(before);

      // The campaign sync after start draws the ads and puts them on the world's ads at the fake.
      await app.adCampaigns.sync(live2.id);
      const [synced] = await app.db.select().from(adCampaigns).where(eq(adCampaigns.id, live2.id));
      expect(synced).toMatchObject({ syncState: 'synced', syncError: null, effectiveStatus: 'ACTIVE' });
      expect(synced!.ads.map((a) => a.adId)).toEqual(live2.ads.map((a) => a.adId));
      expect(synced!.ads.every((a) => a.renderKey !== '' && a.effectiveStatus === 'ACTIVE')).toBe(true);
      await app.close();
    } finally {
      await networks.close();
    }
  });
});
