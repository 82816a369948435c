import { customType, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/** PostgreSQL's bytea; PGlite hands back a Uint8Array, node-postgres a Buffer. */
const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value)),
});

/**
 * Uploaded files (CSV imports, images) kept in the database, so that every instance reads what any
 * instance took (issue 41): one row per chunk of a file, in order. Written in one transaction, so a
 * file is whole or absent.
 */
export const storedBlobs = pgTable(
  'stored_blobs',
  {
    key: text('key').notNull(),
    part: integer('part').notNull(),
    bytes: bytea('bytes').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.key, t.part] })],
);
