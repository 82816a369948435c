import { index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { clients, users } from './identity.ts';
import { cadences, targets } from './integrations.ts';

/**
 * A test e-mail of a cadence's e-mail snippet (issue 38), sent through the outbox to the user who
 * asked. Its ad and click URLs are a real target's with `?test={id}`: fetched with this id they serve
 * that target's ad but count nothing (an owner opening a test must not make a prospect super), and
 * mark the test opened or clicked instead. The rows are also the rate limit's count.
 */
export const emailSnippetTests = pgTable(
  'email_snippet_tests',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    cadenceId: integer('cadence_id')
      .notNull()
      .references(() => cadences.id, { onDelete: 'cascade' }),
    targetId: uuid('target_id')
      .notNull()
      .references(() => targets.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    sentTo: text('sent_to').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    openedAt: timestamp('opened_at', { withTimezone: true }),
    clickedAt: timestamp('clicked_at', { withTimezone: true }),
  },
  (t) => [
    index('email_snippet_tests_user_idx').on(t.userId, t.createdAt),
    index('email_snippet_tests_cadence_idx').on(t.cadenceId, t.createdAt),
  ],
);
