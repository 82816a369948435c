import { createHash } from 'node:crypto';

/** The fields of an entry that its hash covers (everything but its id and the hashes). */
export type AuditContent = {
  clientId: string;
  seq: number;
  createdAt: Date;
  actorUserId: string | null;
  actorEmail: string | null;
  action: string;
  targetKind: string | null;
  targetId: string | null;
  details: Record<string, unknown>;
  ip: string | null;
  userAgent: string | null;
};

/** JSON with object keys sorted at every depth: the same content always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}

/** The canonical text of an entry's content (docs/decisions/0028-audit-log.md). */
export function canonicalContent(c: AuditContent): string {
  return canonicalJson({
    action: c.action,
    actor_email: c.actorEmail,
    actor_user_id: c.actorUserId,
    client_id: c.clientId,
    created_at: c.createdAt.toISOString(),
    details: c.details,
    ip: c.ip,
    seq: c.seq,
    target_id: c.targetId,
    target_kind: c.targetKind,
    user_agent: c.userAgent,
  });
}

/** hash(n) = SHA-256(hash(n-1) ‖ "\n" ‖ canonical content(n)), hex. */
export function entryHash(prevHash: string, c: AuditContent): string {
  return createHash('sha256').update(prevHash).update('\n').update(canonicalContent(c)).digest('hex');
}
