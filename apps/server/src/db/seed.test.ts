import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_ROLES } from '@rally/shared';
import { createTestApp } from '../../test/helpers.ts';
import { verifyPassword } from '../lib/passwords.ts';
import {
  cadences,
  clients,
  integrations,
  memberships,
  opportunities,
  prospects,
  salesReps,
  targets,
  users,
} from './schema/index.ts';
import { DEMO_CLIENTS, DEMO_EMAIL, DEMO_PASSWORD, seedDemo, seedDemoData, seedDemoSdrRep } from './seed.ts';

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
});
