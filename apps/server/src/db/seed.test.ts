import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_ROLES } from '@rally/shared';
import { createTestApp } from '../../test/helpers.ts';
import { verifyPassword } from '../lib/passwords.ts';
import { clients, memberships, users } from './schema/index.ts';
import { DEMO_CLIENTS, DEMO_EMAIL, DEMO_PASSWORD, seedDemo } from './seed.ts';

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
});
