import { and, asc, desc, eq, gt, gte, lt, lte, sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import { AUDIT_GENESIS_HASH } from '@rally/shared/schemas/audit';
import type {
  AuditAction,
  AuditEntry,
  AuditExportQuery,
  AuditListQuery,
  AuditVerifyReply,
} from '@rally/shared/schemas/audit';
import type { Db } from '../../db/client.ts';
import { auditChainHeads, auditLog } from '../../db/schema/index.ts';
import { entryHash } from './chain.ts';

type AuditRow = typeof auditLog.$inferSelect;

export function toEntry(r: AuditRow): AuditEntry {
  return {
    id: r.id,
    seq: r.seq,
    created_at: r.createdAt.toISOString(),
    actor_user_id: r.actorUserId,
    actor_email: r.actorEmail,
    action: r.action as AuditAction,
    target_kind: r.targetKind,
    target_id: r.targetId,
    details: r.details,
    ip: r.ip,
    user_agent: r.userAgent,
    hash: r.hash,
  };
}

/** A bare date as `to` means the whole of that day (UTC). */
function bound(value: string, end: boolean): Date {
  const d = new Date(value.length === 10 ? `${value}T00:00:00Z` : value);
  return end && value.length === 10 ? new Date(d.getTime() + 86_400_000) : d;
}

function filters(clientId: string, q: AuditExportQuery): SQL[] {
  const where: SQL[] = [eq(auditLog.clientId, clientId)];
  if (q.actor) where.push(eq(auditLog.actorUserId, q.actor));
  if (q.action) where.push(eq(auditLog.action, q.action));
  if (q.target_kind) where.push(eq(auditLog.targetKind, q.target_kind));
  if (q.target_id) where.push(eq(auditLog.targetId, q.target_id));
  if (q.from) where.push(gte(auditLog.createdAt, bound(q.from, false)));
  if (q.to)
    where.push(
      q.to.length === 10
        ? lt(auditLog.createdAt, bound(q.to, true))
        : lte(auditLog.createdAt, bound(q.to, true)),
    );
  return where;
}

/** Newest first; `cursor` is the seq of the last entry of the page before. */
export async function listAudit(
  db: Db,
  clientId: string,
  q: AuditListQuery,
): Promise<{ items: AuditEntry[]; next_cursor: number | null }> {
  const where = filters(clientId, q);
  if (q.cursor !== undefined) where.push(lt(auditLog.seq, q.cursor));
  const rows = await db
    .select()
    .from(auditLog)
    .where(and(...where))
    .orderBy(desc(auditLog.seq))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  return { items: page.map(toEntry), next_cursor: rows.length > q.limit && last ? last.seq : null };
}

export async function auditEntry(db: Db, clientId: string, id: string): Promise<AuditEntry | null> {
  const [row] = await db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.clientId, clientId), eq(auditLog.id, id)));
  return row ? toEntry(row) : null;
}

/** Every matching entry, newest first, a page at a time (the CSV export). */
export async function* auditPages(
  db: Db,
  clientId: string,
  q: AuditExportQuery,
  pageSize = 1_000,
): AsyncGenerator<AuditEntry[]> {
  let cursor: number | undefined;
  for (;;) {
    const page = await listAudit(db, clientId, { ...q, limit: pageSize, cursor });
    yield page.items;
    if (page.next_cursor === null) return;
    cursor = page.next_cursor;
  }
}

/**
 * Walks the client's chain from its anchor (the genesis, or the last entry a retention purge
 * dropped): each entry must be the next seq, name the previous hash and hash to its stored hash,
 * and the last must be the head. Reports the first entry that does not.
 */
export async function verifyAudit(db: Db, clientId: string, pageSize = 1_000): Promise<AuditVerifyReply> {
  const [head] = await db.select().from(auditChainHeads).where(eq(auditChainHeads.clientId, clientId));
  const anchorSeq = head?.anchorSeq ?? 0;
  const anchorHash = head?.anchorHash ?? AUDIT_GENESIS_HASH;
  let prevSeq = anchorSeq;
  let prevHash = anchorHash;
  let checked = 0;
  const broken = (r: { id: string; seq: number }, reason: string): AuditVerifyReply => ({
    ok: false,
    checked,
    anchor_seq: anchorSeq,
    anchor_hash: anchorHash,
    first_broken: { id: r.id, seq: r.seq, reason },
    head_hash: head?.hash ?? AUDIT_GENESIS_HASH,
  });
  for (;;) {
    const rows = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.clientId, clientId), gt(auditLog.seq, prevSeq)))
      .orderBy(asc(auditLog.seq))
      .limit(pageSize);
    for (const r of rows) {
      if (r.seq !== prevSeq + 1) return broken(r, `entries ${prevSeq + 1} to ${r.seq - 1} are missing`);
      if (r.prevHash !== prevHash) return broken(r, 'does not follow the entry before it');
      if (entryHash(prevHash, r) !== r.hash) return broken(r, 'its content does not match its hash');
      prevSeq = r.seq;
      prevHash = r.hash;
      checked++;
    }
    if (rows.length < pageSize) break;
  }
  const headSeq = head?.seq ?? 0;
  if (prevSeq !== headSeq || prevHash !== (head?.hash ?? AUDIT_GENESIS_HASH)) {
    return {
      ok: false,
      checked,
      anchor_seq: anchorSeq,
      anchor_hash: anchorHash,
      first_broken: {
        id: '',
        seq: prevSeq + 1,
        reason: `the chain ends at entry ${prevSeq} but its head says ${headSeq}: later entries are missing`,
      },
      head_hash: head?.hash ?? AUDIT_GENESIS_HASH,
    };
  }
  return {
    ok: true,
    checked,
    anchor_seq: anchorSeq,
    anchor_hash: anchorHash,
    first_broken: null,
    head_hash: head?.hash ?? AUDIT_GENESIS_HASH,
  };
}

/**
 * Retention (docs/decisions/0028): drops the client's entries created before `before`, after moving
 * the anchor to the last of them, so verification starts from there. The trigger lets a DELETE
 * through only inside this transaction's `rally.audit_purge` setting and at or below the anchor.
 * Idempotent: a second run finds nothing older.
 */
export async function purgeAudit(db: Db, clientId: string, before: Date): Promise<number> {
  return db.transaction(async (tx) => {
    const [head] = await tx
      .select()
      .from(auditChainHeads)
      .where(eq(auditChainHeads.clientId, clientId))
      .for('update');
    if (!head) return 0;
    const [last] = await tx
      .select({ seq: auditLog.seq, hash: auditLog.hash })
      .from(auditLog)
      .where(and(eq(auditLog.clientId, clientId), lt(auditLog.createdAt, before)))
      .orderBy(desc(auditLog.seq))
      .limit(1);
    if (!last) return 0;
    await tx
      .update(auditChainHeads)
      .set({ anchorSeq: last.seq, anchorHash: last.hash, anchoredAt: new Date() })
      .where(eq(auditChainHeads.clientId, clientId));
    await tx.execute(sql`select set_config('rally.audit_purge', 'on', true)`);
    const gone = await tx
      .delete(auditLog)
      .where(and(eq(auditLog.clientId, clientId), lte(auditLog.seq, last.seq)))
      .returning({ id: auditLog.id });
    await tx.execute(sql`select set_config('rally.audit_purge', 'off', true)`);
    return gone.length;
  });
}
