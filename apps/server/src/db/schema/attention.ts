import { sql } from 'drizzle-orm';
import { boolean, check, index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { SDR_DIGESTS } from '@rally/shared/schemas/sdr-notifications';
import { clients, users } from './identity.ts';
import { companies, salesReps, targets } from './integrations.ts';

/**
 * An account (a Rally company) or a target marked as a sales priority (SPEC.md §7 "Sales priority:
 * POST and DELETE /rest/client/{id}/sales/priority"). Exactly one of `company_id` and `target_id`.
 * The `pipeline/priority` report puts the opportunities of marked accounts — and of the accounts of
 * marked targets' prospects — first.
 */
export const salesPriorities = pgTable(
  'sales_priorities',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    companyId: uuid('company_id').references(() => companies.id, { onDelete: 'cascade' }),
    targetId: uuid('target_id').references(() => targets.id, { onDelete: 'cascade' }),
    markedBy: uuid('marked_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('sales_priorities_client_idx').on(t.clientId),
    uniqueIndex('sales_priorities_company_uq').on(t.clientId, t.companyId),
    uniqueIndex('sales_priorities_target_uq').on(t.clientId, t.targetId),
    check('sales_priorities_one_of', sql`(${t.companyId} is null) <> (${t.targetId} is null)`),
  ],
);

/**
 * A rep's e-mail notifications (SPEC.md §7 "GET and POST /rest/client/{id}/sdr_notifications"): an
 * e-mail when a prospect of theirs becomes a superprospect, and a daily or weekly digest. Sent to the
 * rep's e-mail through the outbox. No row means both off.
 */
export const sdrNotificationSettings = pgTable(
  'sdr_notification_settings',
  {
    salesRepId: uuid('sales_rep_id')
      .primaryKey()
      .references(() => salesReps.id, { onDelete: 'cascade' }),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    superEmail: boolean('super_email').notNull().default(false),
    digest: text('digest', { enum: SDR_DIGESTS }).notNull().default('off'),
    /** The end of the period the last digest covered (the next one starts there). */
    lastDigestAt: timestamp('last_digest_at', { withTimezone: true }),
    updatedBy: uuid('updated_by').references(() => users.id, { onDelete: 'set null' }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('sdr_notification_settings_client_idx').on(t.clientId)],
);
