import { eq } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { AUDIT_GENESIS_HASH } from '@rally/shared/schemas/audit';
import type { AuditAction } from '@rally/shared/schemas/audit';
import type { Db } from '../../db/client.ts';
import { auditChainHeads, auditLog, memberships } from '../../db/schema/index.ts';
import { oneRow } from '../../lib/errors.ts';
import { entryHash } from './chain.ts';
import type { AuditContent } from './chain.ts';

export type AuditActor = { id: string | null; email: string | null };

/** One thing to record. `details` never holds secrets: keys that name one are dropped. */
export type AuditInput = {
  clientId: string;
  action: AuditAction;
  actor?: AuditActor | null;
  target?: { kind: string; id: string | number } | null;
  details?: Record<string, unknown>;
  ip?: string | null;
  userAgent?: string | null;
};

/** Who and from where, from a request (its signed-in user, address and user agent). */
export type AuditOrigin = Pick<AuditInput, 'actor' | 'ip' | 'userAgent'>;

export function auditOrigin(request: FastifyRequest): AuditOrigin {
  const ua = request.headers['user-agent'];
  return {
    actor: request.auth ? { id: request.auth.user.id, email: request.auth.user.email } : null,
    ip: request.ip ?? null,
    userAgent: typeof ua === 'string' ? ua.slice(0, 500) : null,
  };
}

const SECRET_KEY = /secret|token|password|passwd|api_?key|private|credential|card_number|cvc/i;

/** Details as stored: keys that name a secret are dropped at every depth; strings capped. */
export function cleanDetails(value: unknown): unknown {
  if (typeof value === 'string') return value.slice(0, 1000);
  if (Array.isArray(value)) return value.slice(0, 100).map(cleanDetails);
  if (value === null || typeof value !== 'object') {
    return typeof value === 'number' && !Number.isFinite(value) ? null : (value ?? null);
  }
  if (value instanceof Date) return value.toISOString();
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined || SECRET_KEY.test(k)) continue;
    out[k] = cleanDetails(v);
  }
  return out;
}

export type AuditAppended = { id: string; seq: number; hash: string };

/**
 * Appends one entry to the client's chain. The chain head row is locked FOR UPDATE for the rest of
 * the transaction, so appends of one client take turns (a caller's transaction, if `db` is one, holds
 * the turn until it commits) and every entry follows the one before it.
 */
export async function recordAudit(db: Db, input: AuditInput): Promise<AuditAppended> {
  return db.transaction(async (tx) => {
    const clientId = input.clientId.toLowerCase();
    await tx
      .insert(auditChainHeads)
      .values({ clientId, seq: 0, hash: AUDIT_GENESIS_HASH, anchorHash: AUDIT_GENESIS_HASH })
      .onConflictDoNothing();
    const [head] = await tx
      .select({ seq: auditChainHeads.seq, hash: auditChainHeads.hash })
      .from(auditChainHeads)
      .where(eq(auditChainHeads.clientId, clientId))
      .for('update');
    if (!head) throw new Error('audit chain head missing');
    const content: AuditContent = {
      clientId,
      seq: head.seq + 1,
      createdAt: new Date(),
      actorUserId: input.actor?.id?.toLowerCase() ?? null,
      actorEmail: input.actor?.email ?? null,
      action: input.action,
      targetKind: input.target?.kind ?? null,
      targetId: input.target ? String(input.target.id) : null,
      details: (cleanDetails(input.details ?? {}) as Record<string, unknown>) ?? {},
      ip: input.ip ?? null,
      userAgent: input.userAgent ?? null,
    };
    const hash = entryHash(head.hash, content);
    const row = oneRow(
      await tx
        .insert(auditLog)
        .values({ ...content, prevHash: head.hash, hash })
        .returning({ id: auditLog.id }),
    );
    await tx
      .update(auditChainHeads)
      .set({ seq: content.seq, hash })
      .where(eq(auditChainHeads.clientId, clientId));
    return { id: row.id, seq: content.seq, hash };
  });
}

/**
 * For what a person does outside any one client (signing in, turning two-step verification on):
 * one entry in each client they are a member of, or only in `scopeClientId` for a session started
 * by that client's single sign-on (docs/decisions/0028-audit-log.md).
 */
export async function recordAuditForUser(
  db: Db,
  userId: string,
  input: Omit<AuditInput, 'clientId'>,
  scopeClientId: string | null = null,
): Promise<void> {
  const rows = await db
    .select({ clientId: memberships.clientId })
    .from(memberships)
    .where(eq(memberships.userId, userId));
  for (const { clientId } of rows) {
    if (scopeClientId && clientId !== scopeClientId) continue;
    await recordAudit(db, { ...input, clientId });
  }
}

/**
 * Records what the signed-in user of a member route did in the request's client (x-client-id),
 * from the request's address and user agent.
 */
export async function auditRequest(
  db: Db,
  request: FastifyRequest,
  input: Omit<AuditInput, 'clientId' | 'actor' | 'ip' | 'userAgent'> & { clientId?: string },
): Promise<AuditAppended> {
  const clientId = input.clientId ?? request.tenant?.clientId;
  if (!clientId) throw new Error('auditRequest needs a client');
  return recordAudit(db, { ...auditOrigin(request), ...input, clientId });
}
