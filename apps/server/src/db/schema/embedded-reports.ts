import { index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { EMBEDDED_REPORT_KINDS } from '@rally/shared/schemas/embedded-reports';
import { clients, users } from './identity.ts';

/**
 * A saved report shared as an expiring, read-only link (SPEC.md §7 "GET /rest/reports/embedded";
 * issue 17). The link's token is stored only as its SHA-256 (`token_hash`), like sessions and
 * sign-in links. The report covers the last `range_days` days up to the moment it is opened.
 */
export const embeddedReports = pgTable(
  'embedded_reports',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    report: text('report', { enum: EMBEDDED_REPORT_KINDS }).notNull(),
    rangeDays: integer('range_days').notNull(),
    tokenHash: text('token_hash').notNull().unique(),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    views: integer('views').notNull().default(0),
    lastViewedAt: timestamp('last_viewed_at', { withTimezone: true }),
  },
  (t) => [index('embedded_reports_client_idx').on(t.clientId, t.createdAt)],
);
