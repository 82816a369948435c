import { sql } from 'drizzle-orm';
import { bigint, index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { clients } from './identity.ts';

/**
 * The audit log (issue 44, docs/decisions/0028-audit-log.md): append-only, one hash chain per client.
 * `hash` = SHA-256 of the previous entry's hash and this entry's canonical content. A trigger
 * (migration 0055) refuses UPDATE, and DELETE except a retention purge of entries at or below the
 * client's anchor. Actors are kept as id and e-mail at the time, without a foreign key: the log
 * outlives the user.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    /** Position in the client's chain, from 1. */
    seq: bigint('seq', { mode: 'number' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    actorUserId: uuid('actor_user_id'),
    actorEmail: text('actor_email'),
    action: text('action').notNull(),
    targetKind: text('target_kind'),
    targetId: text('target_id'),
    details: jsonb('details')
      .$type<Record<string, unknown>>()
      .notNull()
      .default(sql`'{}'::jsonb`),
    ip: text('ip'),
    userAgent: text('user_agent'),
    prevHash: text('prev_hash').notNull(),
    hash: text('hash').notNull(),
  },
  (t) => [
    uniqueIndex('audit_log_client_seq_idx').on(t.clientId, t.seq),
    index('audit_log_client_actor_idx').on(t.clientId, t.actorUserId, t.seq),
    index('audit_log_client_action_idx').on(t.clientId, t.action, t.seq),
    index('audit_log_client_created_idx').on(t.clientId, t.createdAt),
  ],
);

/**
 * Each client's chain head, locked FOR UPDATE by every append so that appends of one client take
 * turns and the chain never forks. `anchor_*` is where verification starts: the genesis (0, zeros)
 * until a retention purge drops old entries, then the last dropped entry's seq and hash.
 */
export const auditChainHeads = pgTable('audit_chain_heads', {
  clientId: uuid('client_id')
    .primaryKey()
    .references(() => clients.id, { onDelete: 'cascade' }),
  seq: bigint('seq', { mode: 'number' }).notNull().default(0),
  hash: text('hash').notNull(),
  anchorSeq: bigint('anchor_seq', { mode: 'number' }).notNull().default(0),
  anchorHash: text('anchor_hash').notNull(),
  anchoredAt: timestamp('anchored_at', { withTimezone: true }),
});
