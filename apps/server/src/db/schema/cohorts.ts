import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { clients, users } from './identity.ts';
import { cadences, companies, prospects, targets } from './integrations.ts';
import { crmContacts, crmLists } from './crm.ts';

export const COHORT_SOURCE_KINDS = ['crm_list', 'csv', 'filter'] as const;
export type CohortSourceKind = (typeof COHORT_SOURCE_KINDS)[number];
export const COHORT_STATUSES = ['active', 'paused', 'archived'] as const;
export type CohortStatus = (typeof COHORT_STATUSES)[number];
export const COHORT_SYNC_STATES = ['idle', 'queued', 'running', 'done', 'failed'] as const;
export type CohortSyncState = (typeof COHORT_SYNC_STATES)[number];

/** Filters over Rally's own prospects (a `filter` cohort); every field narrows, none means all. */
export type CohortFilters = {
  title?: string;
  company?: string;
  cadence_id?: number;
  superprospect?: boolean;
  engagement?: 'engaged' | 'not_engaged';
};
export type CohortSyncProgress = { done: number; total: number | null };

const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
};

const tenant = () =>
  uuid('client_id')
    .notNull()
    .references(() => clients.id, { onDelete: 'cascade' });

/**
 * A cohort (issue 18, ARCHITECTURE.md §11): a named audience of accounts and contacts from a CRM
 * list or campaign (`crm_list_id`), a CSV, or filters over prospects (`filters`).
 *
 * Ad tags: each cohort owns one hidden cadence (`cadence_id`, cadences.kind = 'cohort') and each
 * member is a target of it. The tracking path (ingest, superprospect rule, feed, billing, ad
 * rendering by the target's day content) is the cadence one, unchanged: pausing the cohort pauses
 * its cadence, so its members' tags serve the neutral image and count nothing by the same rule
 * that pauses a cadence. Journeys can use the cadence's days as stages (a target's day = its stage,
 * the day's content_days = the stage's ads).
 */
export const cohorts = pgTable(
  'cohorts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: tenant(),
    name: text('name').notNull(),
    sourceKind: text('source_kind', { enum: COHORT_SOURCE_KINDS }).notNull(),
    crmListId: uuid('crm_list_id').references(() => crmLists.id, { onDelete: 'set null' }),
    filters: jsonb('filters').$type<CohortFilters>().notNull().default({}),
    status: text('status', { enum: COHORT_STATUSES }).notNull().default('active'),
    /** The status to go back to when an archived cohort is restored. */
    statusBeforeArchive: text('status_before_archive', { enum: ['active', 'paused'] }),
    /** The hidden cadence whose targets are the members' ad tags (see above). */
    cadenceId: integer('cadence_id')
      .notNull()
      .references(() => cadences.id, { onDelete: 'cascade' }),
    /** Contacts (members) and distinct accounts after the last sync. */
    size: integer('size').notNull().default(0),
    accounts: integer('accounts').notNull().default(0),
    syncState: text('sync_state', { enum: COHORT_SYNC_STATES }).notNull().default('idle'),
    syncProgress: jsonb('sync_progress').$type<CohortSyncProgress | null>(),
    syncError: text('sync_error'),
    lastSyncedAt: timestamp('last_synced_at', { withTimezone: true }),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('cohorts_cadence_uq').on(t.cadenceId),
    index('cohorts_client_name_idx').on(t.clientId, sql`lower(${t.name})`, t.id),
    index('cohorts_client_created_idx').on(t.clientId, t.createdAt),
  ],
);

/**
 * A member of a cohort: one prospect (contact) with its company (account), the CRM contact it came
 * from if any, and its target in the cohort's cadence (the ad tag `/t/{token}/ad/...` and click tag
 * `/t/{token}/c`). One row per (cohort, prospect): syncs upsert on it, so re-running one adds nobody twice.
 */
export const cohortMembers = pgTable(
  'cohort_members',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: tenant(),
    cohortId: uuid('cohort_id')
      .notNull()
      .references(() => cohorts.id, { onDelete: 'cascade' }),
    prospectId: uuid('prospect_id')
      .notNull()
      .references(() => prospects.id, { onDelete: 'cascade' }),
    companyId: uuid('company_id').references(() => companies.id, { onDelete: 'set null' }),
    crmContactId: uuid('crm_contact_id').references(() => crmContacts.id, { onDelete: 'set null' }),
    targetId: uuid('target_id')
      .notNull()
      .references(() => targets.id, { onDelete: 'cascade' }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('cohort_members_cohort_prospect_uq').on(t.cohortId, t.prospectId),
    uniqueIndex('cohort_members_target_uq').on(t.targetId),
    index('cohort_members_client_idx').on(t.clientId),
    index('cohort_members_company_idx').on(t.cohortId, t.companyId),
    // A journey's accounts (docs/decisions/0010): the company, or the member when it has none.
    index('cohort_members_account_idx').on(t.cohortId, sql`coalesce(${t.companyId}, ${t.prospectId})`),
  ],
);
