import { boolean, index, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { clients } from './identity.ts';
import { integrations } from './integrations.ts';

/*
 * Ads in the platform's own e-mails (issue 38, ARCHITECTURE.md §13, decision 0019): Rally writes each
 * target's ad image URL and click URL into two fields of the person record the platform e-mails
 * (Salesloft person, Outreach prospect, Apollo contact, HubSpot contact, Salesforce Contact or Lead,
 * Marketo lead). One settings row per connection; one row per person record written.
 */

const tenant = () =>
  uuid('client_id')
    .notNull()
    .references(() => clients.id, { onDelete: 'cascade' });

/** The owner's choice of fields for one connection, and where its write-back stands. */
export const adFieldSettings = pgTable(
  'ad_field_settings',
  {
    integrationId: integer('integration_id')
      .primaryKey()
      .references(() => integrations.id, { onDelete: 'cascade' }),
    clientId: tenant(),
    /** The vendor's API names of the two fields; null until picked or created. */
    imageField: text('image_field'),
    clickField: text('click_field'),
    /** Writing is on (the owner turned it on). */
    enabled: boolean('enabled').notNull().default(false),
    /** A run is under way (set by the job, cleared when it ends; a crashed run's retry clears it). */
    isWriting: boolean('is_writing').notNull().default(false),
    /** Records whose fields differ from what they should hold, as the last run counted them. */
    pendingCount: integer('pending_count').notNull().default(0),
    lastWrittenAt: timestamp('last_written_at', { withTimezone: true }),
    /** The last failure in words for the owner (missing field, revoked access, rate limit). */
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('ad_field_settings_client_idx').on(t.clientId)],
);

/**
 * What Rally last wrote into one person record of a connection: the token whose URLs it wrote (null:
 * the neutral pair) and the signature of the fields and URL shape it wrote them with. A run writes
 * only the records whose wanted token or signature differs, so a second sync sends nothing.
 */
export const adFieldValues = pgTable(
  'ad_field_values',
  {
    integrationId: integer('integration_id')
      .notNull()
      .references(() => integrations.id, { onDelete: 'cascade' }),
    /** The vendor's id of the person record (Salesforce: the Contact's or Lead's 18-character id). */
    recordId: text('record_id').notNull(),
    clientId: tenant(),
    /** The target token whose ad and click URLs the fields hold; null: the neutral pair. */
    token: text('token'),
    signature: text('signature').notNull(),
    /** The vendor refused this record (deleted there, say): not retried until what it should hold changes. */
    failedReason: text('failed_reason'),
    writtenAt: timestamp('written_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.integrationId, t.recordId] }),
    index('ad_field_values_client_idx').on(t.clientId),
  ],
);
