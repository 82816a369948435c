import { and, arrayContains, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import type { WebhookEventType } from '@rally/shared/schemas/hookly';
import type { Db } from '../../db/client.ts';
import { webhookDeliveries, webhookEndpoints } from '../../db/schema/index.ts';
import { oneRow } from '../../lib/errors.ts';

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type NewDelivery = typeof webhookDeliveries.$inferInsert;

/** A client's endpoints, oldest first, each with its newest delivery's status. */
export async function listEndpoints(db: Db, clientId: string) {
  const rows = await db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.clientId, clientId))
    .orderBy(webhookEndpoints.createdAt, webhookEndpoints.id);
  const last = new Map<string, { status: DeliveryRow['status']; createdAt: Date }>();
  if (rows.length) {
    const newest = await db
      .selectDistinctOn([webhookDeliveries.endpointId], {
        endpointId: webhookDeliveries.endpointId,
        status: webhookDeliveries.status,
        createdAt: webhookDeliveries.createdAt,
      })
      .from(webhookDeliveries)
      .where(
        inArray(
          webhookDeliveries.endpointId,
          rows.map((r) => r.id),
        ),
      )
      .orderBy(webhookDeliveries.endpointId, desc(webhookDeliveries.createdAt));
    for (const n of newest) last.set(n.endpointId, { status: n.status, createdAt: n.createdAt });
  }
  return rows.map((r) => ({ ...r, lastDelivery: last.get(r.id) ?? null }));
}

export async function countEndpoints(db: Db, clientId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.clientId, clientId));
  return row?.n ?? 0;
}

export async function findEndpoint(db: Db, clientId: string, id: string): Promise<EndpointRow | null> {
  const [row] = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.clientId, clientId), eq(webhookEndpoints.id, id)));
  return row ?? null;
}

export async function insertEndpoint(db: Db, values: typeof webhookEndpoints.$inferInsert) {
  return oneRow(await db.insert(webhookEndpoints).values(values).returning());
}

export async function updateEndpoint(
  db: Db,
  clientId: string,
  id: string,
  set: Partial<typeof webhookEndpoints.$inferInsert>,
): Promise<EndpointRow | null> {
  const [row] = await db
    .update(webhookEndpoints)
    .set({ ...set, updatedAt: new Date() })
    .where(and(eq(webhookEndpoints.clientId, clientId), eq(webhookEndpoints.id, id)))
    .returning();
  return row ?? null;
}

export async function deleteEndpoint(db: Db, clientId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(webhookEndpoints)
    .where(and(eq(webhookEndpoints.clientId, clientId), eq(webhookEndpoints.id, id)))
    .returning({ id: webhookEndpoints.id });
  return rows.length > 0;
}

/** The events any enabled endpoint of the client subscribes to (one indexed read; cached by the caller). */
export async function subscribedEvents(db: Db, clientId: string): Promise<Set<WebhookEventType>> {
  const rows = await db
    .select({ events: webhookEndpoints.events })
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.clientId, clientId), eq(webhookEndpoints.enabled, true)));
  return new Set(rows.flatMap((r) => r.events));
}

/** Enabled endpoints of the client subscribed to this event. */
export async function endpointsFor(db: Db, clientId: string, type: WebhookEventType) {
  return db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.clientId, clientId),
        eq(webhookEndpoints.enabled, true),
        arrayContains(webhookEndpoints.events, [type]),
      ),
    );
}

export async function insertDeliveries(db: Db, rows: NewDelivery[]): Promise<DeliveryRow[]> {
  if (!rows.length) return [];
  return db.insert(webhookDeliveries).values(rows).returning();
}

export async function listDeliveries(db: Db, clientId: string, endpointId: string, limit: number) {
  return db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.clientId, clientId), eq(webhookDeliveries.endpointId, endpointId)))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(limit);
}

/** A delivery with what sending it needs of its endpoint. */
export async function deliveryToSend(db: Db, id: string) {
  const [row] = await db
    .select({
      delivery: webhookDeliveries,
      url: webhookEndpoints.url,
      secretEnc: webhookEndpoints.secretEnc,
      previousSecretEnc: webhookEndpoints.previousSecretEnc,
      previousSecretExpiresAt: webhookEndpoints.previousSecretExpiresAt,
      enabled: webhookEndpoints.enabled,
    })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(eq(webhookDeliveries.id, id));
  return row ?? null;
}

/**
 * Records attempt `attempt` of a delivery, once: a job run again after a crash finds the attempt
 * recorded and does not count it twice. Returns false when it was recorded already.
 */
export async function recordAttempt(
  db: Db,
  id: string,
  attempt: number,
  set: Pick<DeliveryRow, 'status' | 'lastError' | 'lastStatusCode' | 'nextAttemptAt' | 'deliveredAt'>,
): Promise<boolean> {
  const rows = await db
    .update(webhookDeliveries)
    .set({ ...set, attempts: attempt, updatedAt: new Date() })
    .where(and(eq(webhookDeliveries.id, id), lt(webhookDeliveries.attempts, attempt)))
    .returning({ id: webhookDeliveries.id });
  return rows.length > 0;
}

/** Turns an endpoint off for a reason of Rally's (its receiver answered 410 Gone). */
export async function disableEndpoint(db: Db, clientId: string, id: string, reason: string): Promise<void> {
  await db
    .update(webhookEndpoints)
    .set({ enabled: false, disabledReason: reason, updatedAt: new Date() })
    .where(and(eq(webhookEndpoints.clientId, clientId), eq(webhookEndpoints.id, id)));
}

/** Deletes finished (succeeded or failed) deliveries created before `before`; returns the count. */
export async function pruneDeliveries(db: Db, before: Date): Promise<number> {
  const rows = await db
    .delete(webhookDeliveries)
    .where(
      and(
        inArray(webhookDeliveries.status, ['succeeded', 'failed']),
        lt(webhookDeliveries.createdAt, before),
      ),
    )
    .returning({ id: webhookDeliveries.id });
  return rows.length;
}

/** Unfinished deliveries whose next attempt is overdue by `graceMs` (their job was lost). */
export async function overdueDeliveries(db: Db, graceMs: number, limit = 500) {
  return db
    .select({ id: webhookDeliveries.id, attempts: webhookDeliveries.attempts })
    .from(webhookDeliveries)
    .where(
      and(
        inArray(webhookDeliveries.status, ['pending', 'retrying']),
        lt(webhookDeliveries.nextAttemptAt, new Date(Date.now() - graceMs)),
      ),
    )
    .limit(limit);
}
