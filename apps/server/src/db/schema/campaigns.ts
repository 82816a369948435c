import { sql } from 'drizzle-orm';
import { check, date, index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { clients, users } from './identity.ts';
import { content } from './content.ts';
import { cohorts } from './cohorts.ts';

export const CAMPAIGN_STATUSES = ['draft', 'active', 'paused', 'ended'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/**
 * A campaign (issue 18, docs/decisions/0009-campaigns-and-people-based-cohorts.md): a cohort's
 * flight on an ad network — start and end dates (inclusive, calendar days), a status and the
 * content whose ads are downloaded (`GET /v1/download/{id}`, a zip of its PNGs at the four sizes)
 * and uploaded there. It does not change what the cohort's own ad tags serve.
 */
export const campaigns = pgTable(
  'campaigns',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    cohortId: uuid('cohort_id')
      .notNull()
      .references(() => cohorts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    status: text('status', { enum: CAMPAIGN_STATUSES }).notNull().default('draft'),
    startsOn: date('starts_on', { mode: 'string' }).notNull(),
    endsOn: date('ends_on', { mode: 'string' }).notNull(),
    contentId: uuid('content_id').references(() => content.id, { onDelete: 'set null' }),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('campaigns_client_created_idx').on(t.clientId, t.createdAt),
    index('campaigns_cohort_idx').on(t.cohortId),
    check('campaigns_flight_ck', sql`${t.endsOn} > ${t.startsOn}`),
  ],
);
