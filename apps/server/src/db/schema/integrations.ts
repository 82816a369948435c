import { boolean, index, pgTable, serial, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { INTEGRATION_SOURCES } from '@rally/shared/schemas/auth';
import { clients } from './identity.ts';

export { INTEGRATION_SOURCES };

/** A connection of a client to an outside system (SPEC.md §3 "Integration"; numeric id). */
export const integrations = pgTable(
  'integrations',
  {
    id: serial('id').primaryKey(),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    source: text('source', { enum: INTEGRATION_SOURCES }).notNull(),
    isActive: boolean('is_active').notNull().default(true),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('integrations_client_idx').on(t.clientId)],
);
