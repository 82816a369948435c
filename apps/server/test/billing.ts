import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../src/db/client.ts';
import { cadences, clients, integrations, localCharges, prospects, targets } from '../src/db/schema/index.ts';

/**
 * Factories for billing tests on a bare database: superprospects are targets with a super_date
 * (what the engagement engine sets), made in bulk.
 */
export async function makeBillingClient(
  db: Db,
  name = `Billing ${randomUUID().slice(0, 6)}`,
): Promise<string> {
  const [c] = await db.insert(clients).values({ name }).returning({ id: clients.id });
  return c!.id;
}

async function cadenceOf(db: Db, clientId: string): Promise<number> {
  const [existing] = await db.select().from(cadences).where(eq(cadences.clientId, clientId));
  if (existing) return existing.id;
  const [integration] = await db
    .insert(integrations)
    .values({ clientId, source: 'fileforce' })
    .onConflictDoNothing()
    .returning();
  const integrationId =
    integration?.id ??
    (await db.select().from(integrations).where(eq(integrations.clientId, clientId)))[0]!.id;
  const [cadence] = await db
    .insert(cadences)
    .values({ clientId, integrationId, externalId: randomUUID(), name: 'Q3 Outbound', isSuper: true })
    .returning();
  return cadence!.id;
}

/** Makes `n` targets that became superprospects at `superDate` (one prospect each); returns their ids. */
export async function makeSupers(db: Db, clientId: string, n: number, superDate: Date): Promise<string[]> {
  if (n === 0) return [];
  const cadenceId = await cadenceOf(db, clientId);
  const [cadence] = await db.select().from(cadences).where(eq(cadences.id, cadenceId));
  const people = await db
    .insert(prospects)
    .values(
      Array.from({ length: n }, (_, i) => ({
        clientId,
        integrationId: cadence!.integrationId,
        externalId: randomUUID(),
        firstName: 'Prospect',
        lastName: String(i + 1),
        email: `p-${randomUUID().slice(0, 8)}@example.com`,
      })),
    )
    .returning({ id: prospects.id });
  const rows = await db
    .insert(targets)
    .values(people.map((p) => ({ clientId, cadenceId, prospectId: p.id, clicks: 1, superDate })))
    .returning({ id: targets.id });
  return rows.map((r) => r.id);
}

/** What the local provider's books hold for a client: every payment asked, by key. */
export async function providerCharges(db: Db, clientId: string) {
  return db
    .select()
    .from(localCharges)
    .where(eq(localCharges.clientId, clientId))
    .orderBy(sql`${localCharges.createdAt}`, localCharges.idempotencyKey);
}

/** A controllable clock for the billing run. */
export function testClock(start: string) {
  let at = new Date(start);
  return {
    now: () => new Date(at),
    set(iso: string) {
      at = new Date(iso);
    },
    advance(ms: number) {
      at = new Date(at.getTime() + ms);
    },
  };
}

export const silentLog = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  fatal() {},
  trace() {},
  child() {
    return silentLog;
  },
  level: 'silent',
  silent() {},
} as never;
