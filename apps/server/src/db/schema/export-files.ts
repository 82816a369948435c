import { index, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { EXPORT_FILE_REPORTS, EXPORT_FILE_STATUSES } from '@rally/shared/schemas/export-files';
import { OPPORTUNITY_REPORT_FILTERS } from '@rally/shared/schemas/reports';
import { clients, users } from './identity.ts';

/** A report's CSV written by the export job (the file's text is in `export_file_parts`). */
export const exportFiles = pgTable(
  'export_files',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    report: text('report', { enum: EXPORT_FILE_REPORTS }).notNull(),
    filter: text('filter', { enum: OPPORTUNITY_REPORT_FILTERS }).notNull(),
    rangeFrom: timestamp('range_from', { withTimezone: true }).notNull(),
    rangeTo: timestamp('range_to', { withTimezone: true }).notNull(),
    filename: text('filename').notNull(),
    status: text('status', { enum: EXPORT_FILE_STATUSES }).notNull().default('queued'),
    rows: integer('rows').notNull().default(0),
    bytes: integer('bytes').notNull().default(0),
    error: text('error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('export_files_client_idx').on(t.clientId, t.createdAt)],
);

/**
 * The file's text in order, one part per page of rows: the job writes and the download reads a part
 * at a time, so neither holds the whole file (a million rows are about 150 MB of CSV).
 */
export const exportFileParts = pgTable(
  'export_file_parts',
  {
    fileId: uuid('file_id')
      .notNull()
      .references(() => exportFiles.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    text: text('text').notNull(),
  },
  (t) => [primaryKey({ columns: [t.fileId, t.seq] })],
);
