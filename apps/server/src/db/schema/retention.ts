import { integer, pgTable, timestamp, uuid } from 'drizzle-orm/pg-core';
import { clients, users } from './identity.ts';

/**
 * A client's retention settings (issue 44, decision 0032). No row means the defaults
 * (RETENTION_BOUNDS in @rally/shared/schemas/retention), which the column defaults repeat.
 */
export const retentionSettings = pgTable('retention_settings', {
  clientId: uuid('client_id')
    .primaryKey()
    .references(() => clients.id, { onDelete: 'cascade' }),
  eventsMonths: integer('events_months').notNull().default(25),
  exportFilesDays: integer('export_files_days').notNull().default(7),
  deliveryLogsDays: integer('delivery_logs_days').notNull().default(30),
  auditLogDays: integer('audit_log_days').notNull().default(365),
  updatedBy: uuid('updated_by').references(() => users.id, { onDelete: 'set null' }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
