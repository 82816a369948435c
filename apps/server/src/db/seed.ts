import { and, eq, sql } from 'drizzle-orm';
import { BUILT_IN_ROLES } from '@rally/shared';
import type { BuiltInRole } from '@rally/shared';
import { hashPassword } from '../lib/passwords.ts';
import type { Db } from './client.ts';
import { clients, memberships, users } from './schema/index.ts';

export const DEMO_EMAIL = 'demo@rally.test';
export const DEMO_PASSWORD = 'rally-demo-2026';

/** Fixed ids make the seed idempotent and let docs and tests name the demo clients. */
export const DEMO_CLIENTS = {
  agency: { id: '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c000001', name: 'Northwind Agency', parentId: null },
  acme: {
    id: '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c000002',
    name: 'Acme Robotics',
    parentId: '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c000001',
  },
  globex: {
    id: '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c000003',
    name: 'Globex Logistics',
    parentId: '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c000001',
  },
} as const;

type DemoUser = {
  email: string;
  firstName: string;
  lastName: string;
  memberships: { client: keyof typeof DEMO_CLIENTS; role: BuiltInRole; isDefault?: boolean }[];
};

export const DEMO_USERS: DemoUser[] = [
  {
    email: DEMO_EMAIL,
    firstName: 'Dana',
    lastName: 'Reyes',
    memberships: [
      { client: 'agency', role: 'purple_owner', isDefault: true },
      { client: 'acme', role: 'purple_owner' },
      { client: 'globex', role: 'green_manager' },
    ],
  },
  {
    email: 'sam@rally.test',
    firstName: 'Sam',
    lastName: 'Okafor',
    memberships: [{ client: 'acme', role: 'yellow_sdr', isDefault: true }],
  },
];

/**
 * Creates the demo data if it is missing; running it again changes nothing. Every demo user signs in
 * with DEMO_PASSWORD.
 */
export async function seedDemo(db: Db): Promise<{ created: boolean }> {
  let created = false;
  let passwordHash: string | undefined;
  await db.transaction(async (tx) => {
    await tx.insert(clients).values(Object.values(DEMO_CLIENTS)).onConflictDoNothing();
    for (const u of DEMO_USERS) {
      const [existing] = await tx
        .select({ id: users.id })
        .from(users)
        .where(eq(sql`lower(${users.email})`, u.email));
      let userId = existing?.id;
      if (!userId) {
        passwordHash ??= await hashPassword(DEMO_PASSWORD);
        const [row] = await tx
          .insert(users)
          .values({ email: u.email, firstName: u.firstName, lastName: u.lastName, passwordHash })
          .returning({ id: users.id });
        userId = row?.id;
        created = true;
      }
      if (!userId) throw new Error(`seed: could not create ${u.email}`);
      for (const m of u.memberships) {
        const clientId = DEMO_CLIENTS[m.client].id;
        const [has] = await tx
          .select({ id: memberships.id })
          .from(memberships)
          .where(and(eq(memberships.userId, userId), eq(memberships.clientId, clientId)));
        if (has) continue;
        await tx.insert(memberships).values({
          userId,
          clientId,
          role: m.role,
          permissions: [...BUILT_IN_ROLES[m.role]],
          isDefault: m.isDefault ?? false,
        });
      }
    }
  });
  return { created };
}
