import { and, desc, eq, sql } from 'drizzle-orm';
import type { Erasure, ErasureCounts } from '@rally/shared/schemas/erasures';
import type { Db } from '../../db/client.ts';
import { erasures, suppressions, users } from '../../db/schema/index.ts';
import { recordAudit } from '../audit/record.ts';
import type { AuditOrigin } from '../audit/record.ts';
import type { SuppressionKey } from '../suppressions/key.ts';
import { suppress } from '../suppressions/service.ts';
import { erasePerson } from './erase.ts';

/**
 * "Forget this person" (issue 44, decision 0031): one transaction erases everything the client holds
 * under the address, keeps the record (keyed hash, when, by whom, counts), puts the hash on the
 * suppression list and appends the audit entry, or does none of it.
 */
type Row = typeof erasures.$inferSelect;
const ZERO: ErasureCounts = {
  prospects: 0,
  targets: 0,
  events: 0,
  uncounted_events: 0,
  crm_contacts: 0,
  cohort_memberships: 0,
  journey_memberships: 0,
  feed_items: 0,
  export_files: 0,
  outbox_messages: 0,
  webhook_deliveries: 0,
  audience_members: 0,
  crm_write_backs: 0,
};

function sum(a: Partial<ErasureCounts>, b: ErasureCounts): ErasureCounts {
  const out = { ...ZERO };
  for (const k of Object.keys(ZERO) as (keyof ErasureCounts)[]) out[k] = Number(a[k] ?? 0) + b[k];
  return out;
}

export type EraseOutcome = { erasure: Erasure; created: boolean; audiences: string[] };

/** Null when nothing is left of the address (blank). */
export async function erase(
  db: Db,
  key: SuppressionKey,
  clientId: string,
  email: string,
  origin: AuditOrigin,
): Promise<EraseOutcome | null> {
  const hash = key.hash(email);
  if (!hash) return null;
  const by = origin.actor?.id ?? null;
  const done = await db.transaction(async (tx) => {
    // The record first: a second erasure of the same person waits here on the unique key until the
    // first commits, then finds nothing left to delete and updates the one record.
    const [rec] = await tx
      .insert(erasures)
      .values({ clientId, emailHash: hash, erasedBy: by })
      .onConflictDoUpdate({
        target: [erasures.clientId, erasures.emailHash],
        set: { erasedAt: sql`now()`, erasedBy: by },
      })
      .returning({ id: erasures.id, counts: erasures.counts, created: sql<boolean>`(xmax = 0)` });
    if (!rec) throw new Error('erasure record missing');
    const { counts, audiences } = await erasePerson(tx, clientId, email);
    // Every entry of the list under this hash, history included, loses its address.
    await tx
      .update(suppressions)
      .set({ email: null })
      .where(and(eq(suppressions.clientId, clientId), eq(suppressions.emailHash, hash)));
    await suppress(tx, key, clientId, email, { source: 'erasure', reason: 'Erased (forgotten)', by });
    const total = sum(rec.counts as Partial<ErasureCounts>, counts);
    await tx.update(erasures).set({ counts: total }).where(eq(erasures.id, rec.id));
    // The log names the record, never the address (its hash is in the record).
    await recordAudit(tx, {
      clientId,
      action: 'erasure.performed',
      ...origin,
      target: { kind: 'erasure', id: rec.id },
      details: { removed: counts },
    });
    return { id: rec.id, created: rec.created === true || String(rec.created) === 'true', audiences };
  });
  const erasure = await erasureById(db, clientId, done.id);
  if (!erasure) throw new Error('erasure record missing');
  return { erasure, created: done.created, audiences: done.audiences };
}

const nameOf = sql<string | null>`nullif(btrim(${users.firstName} || ' ' || ${users.lastName}), '')`;

function view(r: { e: Row; name: string | null }): Erasure {
  return {
    id: String(r.e.id),
    email_hash: r.e.emailHash,
    erased_at: r.e.erasedAt.toISOString(),
    erased_by: r.e.erasedBy,
    erased_by_name: r.name,
    counts: sum(r.e.counts as Partial<ErasureCounts>, ZERO),
  };
}

export async function erasureById(db: Db, clientId: string, id: number): Promise<Erasure | null> {
  const [row] = await db
    .select({ e: erasures, name: nameOf })
    .from(erasures)
    .leftJoin(users, eq(users.id, erasures.erasedBy))
    .where(and(eq(erasures.id, id), eq(erasures.clientId, clientId)));
  return row ? view(row) : null;
}

/** The client's erasure records, newest first (the last 200). */
export async function listErasures(db: Db, clientId: string): Promise<Erasure[]> {
  const rows = await db
    .select({ e: erasures, name: nameOf })
    .from(erasures)
    .leftJoin(users, eq(users.id, erasures.erasedBy))
    .where(eq(erasures.clientId, clientId))
    .orderBy(desc(erasures.erasedAt), desc(erasures.id))
    .limit(200);
  return rows.map(view);
}

/**
 * For syncs: a test of addresses that were erased in the client and are still on its suppression
 * list. An owner brings a person back by hand by taking the entry off the list; until then a sync
 * leaves them out altogether (a suppressed but not erased person is still synced, and served nothing).
 */
export async function erasedTest(
  db: Pick<Db, 'execute'>,
  key: SuppressionKey,
  clientId: string,
  emails: readonly (string | null | undefined)[],
): Promise<(email: string | null | undefined) => boolean> {
  // Most clients have erased no one: then no address is hashed (issue 43: two HMACs a contact were
  // half of a CRM sync's own CPU). Otherwise each address is hashed once, for the query and the test.
  const anyone = (await db.execute(
    sql`select 1 as one from erasures where client_id = ${clientId} limit 1`,
  )) as unknown as { rows: unknown[] };
  if (anyone.rows.length === 0) return () => false;
  const hashOf = new Map<string, string | null>();
  const hashed = (email: string) => {
    let h = hashOf.get(email);
    if (h === undefined) {
      h = key.hash(email);
      hashOf.set(email, h);
    }
    return h;
  };
  const hashes = [...new Set(emails.map((e) => (e ? hashed(e) : null)).filter((h) => h !== null))];
  const found = new Set<string>();
  if (hashes.length) {
    const rows = (await db.execute(sql`select e.email_hash from erasures e
        where e.client_id = ${clientId}
          and e.email_hash = any(array(select jsonb_array_elements_text(${JSON.stringify(hashes)}::jsonb)))
          and exists (select 1 from suppressions s where s.client_id = e.client_id
            and s.email_hash = e.email_hash and s.removed_at is null)`)) as unknown as {
      rows: { email_hash: string }[];
    };
    for (const r of rows.rows) found.add(r.email_hash);
  }
  return (email) => {
    if (!email || found.size === 0) return false;
    const h = hashed(email);
    return h !== null && found.has(h);
  };
}
