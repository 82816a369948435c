import { bigint, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import type { ErasureCounts } from '@rally/shared/schemas/erasures';
import { clients, users } from './identity.ts';

/**
 * What is left of an erased person (issue 44, decision 0031): the keyed hash of the address (the same
 * HMAC as the suppression list, modules/suppressions/key.ts), when, by whom and how much went. One
 * row per person and client: a second erasure (or two at once) updates it.
 */
export const erasures = pgTable(
  'erasures',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    emailHash: text('email_hash').notNull(),
    erasedBy: uuid('erased_by').references(() => users.id, { onDelete: 'set null' }),
    erasedAt: timestamp('erased_at', { withTimezone: true }).notNull().defaultNow(),
    counts: jsonb('counts').$type<ErasureCounts | Record<string, never>>().notNull().default({}),
  },
  (t) => [uniqueIndex('erasures_client_hash_uq').on(t.clientId, t.emailHash)],
);
