import { sql } from 'drizzle-orm';
import { bigint, index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { SUPPRESSION_SOURCES } from '@rally/shared/schemas/suppressions';
import { clients, users } from './identity.ts';

/**
 * A client's suppression list (issue 44, decision 0027). A person is suppressed in a client while a
 * row with their address's keyed hash (HMAC-SHA256 under a key derived from APP_SECRET, of the
 * trimmed, ASCII-lower-cased address) has no `removed_at`. Removal keeps the row as history. The
 * address itself is kept for the list's display and export, never for erasure records.
 */
export const suppressions = pgTable(
  'suppressions',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    emailHash: text('email_hash').notNull(),
    email: text('email'),
    source: text('source', { enum: SUPPRESSION_SOURCES }).notNull(),
    reason: text('reason').notNull().default(''),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    removedAt: timestamp('removed_at', { withTimezone: true }),
    removedBy: uuid('removed_by').references(() => users.id, { onDelete: 'set null' }),
    removedReason: text('removed_reason'),
  },
  (t) => [
    // One entry in force per person and client; the lookup of the tag's state query.
    uniqueIndex('suppressions_active_uq')
      .on(t.clientId, t.emailHash)
      .where(sql`${t.removedAt} is null`),
    index('suppressions_client_idx').on(t.clientId, t.id),
  ],
);
