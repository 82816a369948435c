import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  serial,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { INTEGRATION_SOURCES } from '@rally/shared/schemas/auth';
import { randomToken } from '../../lib/crypto.ts';
import { clients, users } from './identity.ts';

export { INTEGRATION_SOURCES };

const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
};

const clientRef = () =>
  uuid('client_id')
    .notNull()
    .references(() => clients.id, { onDelete: 'cascade' });

/** The resources of a sequence sync, then of a CRM sync (modules/crm/port.ts CRM_SYNC_PHASES). */
type SyncResource =
  | 'users'
  | 'cadences'
  | 'memberships'
  | 'stages'
  | 'owners'
  | 'accounts'
  | 'contacts'
  | 'opportunities'
  | 'history'
  | 'lists'
  | 'activities';
/**
 * Where a sync stopped, per resource: the newest `updated_at` already stored (ISO string).
 * `fullPass`: when the last read of every membership began (port.ts Page.fullPass).
 */
export type SyncCursor = Partial<Record<SyncResource, string>> & { fullPass?: string };
/**
 * The vendor's API budget as its last reply told it (Salesforce's `Sforce-Limit-Info: api-usage=
 * used/max`: calls in the last 24 hours against the org's daily allocation), and when.
 */
export type ApiUsage = { used: number; max: number; at: string };
/** Shown as the progress bar of a running sync. */
export type SyncProgress = {
  phase: SyncResource | 'done';
  done: number;
  total: number | null;
};

/**
 * A connection of a client to an outside system (SPEC.md §3 "Integration"; numeric id). One per
 * source per client. Credentials (OAuth tokens or an API key) are sealed with APP_SECRET.
 */
export const integrations = pgTable(
  'integrations',
  {
    id: serial('id').primaryKey(),
    clientId: clientRef(),
    source: text('source', { enum: INTEGRATION_SOURCES }).notNull(),
    isActive: boolean('is_active').notNull().default(true),
    /** Sealed JSON of the adapter's Credentials; null for fileforce. */
    credentialsEnc: text('credentials_enc'),
    /** The vendor account we are connected to (e.g. the team or user name), for the connections screen. */
    accountName: text('account_name'),
    /**
     * A CRM's link to one opportunity in its own screens, `{id}` standing for the record's id
     * (issue 42 item 7: every name opens the vendor's record where there is one); null: no link.
     */
    opportunityUrlTemplate: text('opportunity_url_template'),
    /** Why the integration is inactive, in words for the user (e.g. "Salesloft revoked access…"). */
    lastError: text('last_error'),
    /**
     * What this connection cannot see, in words for the user (a Salesloft non-admin sees only their
     * own actions and users); set when connecting, null when it sees everything.
     */
    accessNote: text('access_note'),
    syncCursor: jsonb('sync_cursor').$type<SyncCursor>().notNull().default({}),
    /** The vendor's API calls used against its allocation (shown on the connection); null: not told. */
    apiUsage: jsonb('api_usage').$type<ApiUsage | null>(),
    isSyncing: boolean('is_syncing').notNull().default(false),
    syncProgress: jsonb('sync_progress').$type<SyncProgress | null>(),
    lastSyncedAt: timestamp('last_synced_at', { withTimezone: true }),
    ...timestamps,
  },
  (t) => [
    index('integrations_client_idx').on(t.clientId),
    uniqueIndex('integrations_client_source_uq').on(t.clientId, t.source),
  ],
);

/** A sales rep (SPEC.md §3 "Sales rep", extended form): a user of the sequence platform. */
export const salesReps = pgTable(
  'sales_reps',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: clientRef(),
    integrationId: integer('integration_id')
      .notNull()
      .references(() => integrations.id, { onDelete: 'cascade' }),
    externalId: text('external_id').notNull(),
    firstName: text('first_name').notNull().default(''),
    lastName: text('last_name').notNull().default(''),
    email: text('email'),
    /**
     * The source gave an e-mail that is no valid address (SPEC.md §5): it is not stored (email is
     * null) and the rep is flagged, not dropped.
     */
    emailInvalid: boolean('email_invalid').notNull().default(false),
    title: text('title').notNull().default(''),
    photoUrl: text('photo_url'),
    companyName: text('company_name').notNull().default(''),
    calendarUrl: text('calendar_url').notNull().default(''),
    /** Chosen in onboarding: ads run for this rep's prospects. */
    selected: boolean('selected').notNull().default(false),
    isActive: boolean('is_active').notNull().default(true),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('sales_reps_integration_external_uq').on(t.integrationId, t.externalId),
    index('sales_reps_client_idx').on(t.clientId),
  ],
);

export const CADENCE_STATUSES = ['draft', 'active', 'paused', 'finished'] as const;
/** `sequence`: mirrors a sequence or a file's cadence; `cohort`: the hidden cadence of a cohort (cohorts.ts). */
export const CADENCE_KINDS = ['sequence', 'cohort'] as const;
/** A target's side of its cadence's randomised holdout (issue 45); null: assigned while there was none. */
export const HOLDOUT_GROUPS = ['exposed', 'held_out'] as const;
export type CadenceStatus = (typeof CADENCE_STATUSES)[number];

/** Transition actions and content of one cadence day (SPEC.md §3 "Content day", "Cadence action"). */
export type ContentDay = {
  content_id: string;
  day_transition_actions: {
    action_type: string;
    action_rule: string;
    action_rule_value: number;
    /** The day a `move_to_day` action moves the target to. */
    target_day_number?: number;
  }[];
};

/** A cadence mirrors one sequence of the platform, or comes from a file import (ARCHITECTURE.md §5). */
export const cadences = pgTable(
  'cadences',
  {
    id: serial('id').primaryKey(),
    clientId: clientRef(),
    integrationId: integer('integration_id')
      .notNull()
      .references(() => integrations.id, { onDelete: 'cascade' }),
    externalId: text('external_id').notNull(),
    name: text('name').notNull(),
    status: text('status', { enum: CADENCE_STATUSES }).notNull().default('active'),
    kind: text('kind', { enum: CADENCE_KINDS }).notNull().default('sequence'),
    /** Ads switched on for this cadence. */
    isSuper: boolean('is_super').notNull().default(false),
    isSyncing: boolean('is_syncing').notNull().default(false),
    lastSyncedAt: timestamp('last_synced_at', { withTimezone: true }),
    ownerId: uuid('owner_id').references(() => salesReps.id, { onDelete: 'set null' }),
    /** Sales rep ids whose prospects see ads; empty means every rep. */
    selectedSdrs: jsonb('selected_sdrs').$type<string[]>().notNull().default([]),
    /**
     * Share (0–50 %) of targets entering from now on that are held out: no ad, nothing counted or
     * billed (issue 45). Existing cadences start at 0; new ones at the configured default.
     */
    holdoutPercent: smallint('holdout_percent').notNull().default(0),
    /** The key of the hash that assigns targets (the assignment is reproducible from it and the id). */
    holdoutSeed: text('holdout_seed')
      .notNull()
      .default(sql`gen_random_uuid()::text`),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('cadences_integration_external_uq').on(t.integrationId, t.externalId),
    check('cadences_holdout_percent_ck', sql`${t.holdoutPercent} between 0 and 50`),
    index('cadences_client_idx').on(t.clientId),
  ],
);

export const cadenceDays = pgTable(
  'cadence_days',
  {
    id: serial('id').primaryKey(),
    clientId: clientRef(),
    cadenceId: integer('cadence_id')
      .notNull()
      .references(() => cadences.id, { onDelete: 'cascade' }),
    dayNumber: integer('day_number').notNull(),
    contentDays: jsonb('content_days').$type<ContentDay[]>().notNull().default([]),
  },
  (t) => [uniqueIndex('cadence_days_cadence_day_uq').on(t.cadenceId, t.dayNumber)],
);

/** A prospect's company. Keyed by the vendor's account id, or by the lower-cased name for files. */
export const companies = pgTable(
  'companies',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: clientRef(),
    integrationId: integer('integration_id')
      .notNull()
      .references(() => integrations.id, { onDelete: 'cascade' }),
    externalId: text('external_id').notNull(),
    name: text('name').notNull(),
    website: text('website'),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('companies_integration_external_uq').on(t.integrationId, t.externalId),
    index('companies_client_idx').on(t.clientId),
    // The prospects list sorted by company (keyset over name, id) and searched by company name.
    index('companies_client_name_idx').on(t.clientId, sql`lower(${t.name})`, t.id),
    index('companies_name_trgm_idx').using('gin', sql`${t.name} gin_trgm_ops`),
  ],
);

/** A person at a company (SPEC.md §3 "Prospect"). Keyed by vendor id, or lower-cased e-mail for files. */
export const prospects = pgTable(
  'prospects',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: clientRef(),
    integrationId: integer('integration_id')
      .notNull()
      .references(() => integrations.id, { onDelete: 'cascade' }),
    externalId: text('external_id').notNull(),
    firstName: text('first_name').notNull().default(''),
    lastName: text('last_name').notNull().default(''),
    email: text('email'),
    title: text('title').notNull().default(''),
    photoUrl: text('photo_url'),
    companyId: uuid('company_id').references(() => companies.id, { onDelete: 'set null' }),
    isActive: boolean('is_active').notNull().default(true),
    /**
     * The ids of the cadences the prospect has a target in, sorted. Kept by triggers on targets
     * (migration 0028), never written by the app except as a hint on insert: a search combined with
     * a cadence filter intersects this column's index with the trigram one (BitmapAnd) instead of
     * probing the cadence's targets for every match.
     */
    cadenceIds: integer('cadence_ids')
      .array()
      .notNull()
      .default(sql`'{}'::int[]`),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('prospects_integration_external_uq').on(t.integrationId, t.externalId),
    index('prospects_client_idx').on(t.clientId),
    // Keyset paging of the prospects list in each sort order (name, e-mail then blanks, title,
    // company), and substring search (pg_trgm) over name, e-mail and title.
    index('prospects_client_name_idx').on(
      t.clientId,
      sql`lower(${t.firstName})`,
      sql`lower(${t.lastName})`,
      t.id,
    ),
    index('prospects_client_email_idx')
      .on(t.clientId, sql`lower(${t.email})`, t.id)
      .where(sql`${t.email} is not null`),
    // The reports tie a prospect to an account by its e-mail's domain (reports/repository.ts).
    index('prospects_client_email_domain_idx')
      .on(t.clientId, sql`lower(split_part(${t.email}, '@', 2))`)
      .where(sql`${t.email} is not null`),
    index('prospects_client_no_email_idx')
      .on(t.clientId, t.id)
      .where(sql`${t.email} is null`),
    index('prospects_client_title_idx').on(t.clientId, sql`lower(${t.title})`, t.id),
    index('prospects_client_company_idx').on(t.clientId, t.companyId, t.id),
    // One GIN index over both the cadence ids and the search text: a search with a cadence filter is
    // one index scan that intersects the two inside the index, whatever the planner's estimates
    // (separate indexes were only ANDed while the column had no statistics). The cadence ids come
    // first: with the text first, a search alone scanned this index 3–4× slower (migration 0028).
    index('prospects_search_cadences_idx').using(
      'gin',
      t.cadenceIds,
      sql`(${t.firstName} || ' ' || ${t.lastName} || ' ' || coalesce(${t.email}, '') || ' ' || ${t.title}) gin_trgm_ops`,
    ),
  ],
);

/**
 * One prospect in one cadence (ARCHITECTURE.md §5), on its current day, with the rep assigned and a
 * public opaque token for ad and click tags. Engagement counters arrive with the engine.
 */
export const targets = pgTable(
  'targets',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: clientRef(),
    cadenceId: integer('cadence_id')
      .notNull()
      .references(() => cadences.id, { onDelete: 'cascade' }),
    prospectId: uuid('prospect_id')
      .notNull()
      .references(() => prospects.id, { onDelete: 'cascade' }),
    salesRepId: uuid('sales_rep_id').references(() => salesReps.id, { onDelete: 'set null' }),
    /** The vendor's membership id (Salesloft cadence membership, Outreach sequence state…), if any. */
    externalId: text('external_id'),
    dayNumber: integer('day_number').notNull().default(1),
    isActive: boolean('is_active').notNull().default(true),
    /** The sequence platform has reached out to the prospect (an e-mail or call step happened). */
    contacted: boolean('contacted').notNull().default(false),
    token: text('token')
      .notNull()
      // Made here, not in SQL: PGlite has no pgcrypto. 144 random bits, URL-safe.
      .$defaultFn(() => randomToken(18)),
    impressions: integer('impressions').notNull().default(0),
    clicks: integer('clicks').notNull().default(0),
    views: integer('views').notNull().default(0),
    superDate: timestamp('super_date', { withTimezone: true }),
    /** When the target arrived on its current day, and its engagement since (transition rules). */
    dayEnteredAt: timestamp('day_entered_at', { withTimezone: true }).notNull().defaultNow(),
    dayImpressions: integer('day_impressions').notNull().default(0),
    dayClicks: integer('day_clicks').notNull().default(0),
    /**
     * Exposed or held out, set once when the target is inserted (trigger `targets_assign_holdout`,
     * a keyed hash of its id against its cadence's share then); null when the cadence had none.
     */
    holdoutGroup: text('holdout_group', { enum: HOLDOUT_GROUPS }),
    /** The cadence's share when the target was assigned (the lift report weighs by it). */
    holdoutPercent: smallint('holdout_percent'),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('targets_cadence_prospect_uq').on(t.cadenceId, t.prospectId),
    uniqueIndex('targets_token_uq').on(t.token),
    // The lift report's targets: those assigned while their cadence had a holdout (issue 45).
    index('targets_holdout_idx')
      .on(t.clientId, t.cadenceId)
      .where(sql`${t.holdoutGroup} is not null`),
    check('targets_holdout_group_ck', sql`${t.holdoutGroup} in ('exposed', 'held_out')`),
    index('targets_client_idx').on(t.clientId),
    // Migration 0082 adds INCLUDE (id): a prospect's targets of a client, index-only (alignment's engaged
    // prospects, an account's events); drizzle-kit cannot express INCLUDE.
    index('targets_prospect_idx').on(t.prospectId, t.clientId),
    index('targets_sales_rep_idx').on(t.salesRepId),
    // The prospects list sorted by impressions or super date (keyset), and supers of a day.
    // Split by super so "never super, most impressions" need not skip every super (≥15 impressions).
    index('targets_impressions_nonsuper_idx')
      .on(t.clientId, t.impressions, t.id)
      .where(sql`${t.superDate} is null`),
    index('targets_impressions_super_idx')
      .on(t.clientId, t.impressions, t.id)
      .where(sql`${t.superDate} is not null`),
    // A cadence's entries by impressions (the prospects list filtered by cadence and sorted by
    // impressions, with or without a search). Migration 0007 adds INCLUDE (prospect_id, client_id)
    // so the walk is index-only; drizzle-kit cannot express INCLUDE.
    index('targets_cadence_impressions_idx').on(t.cadenceId, t.impressions, t.id),
    // Migration 0029 adds INCLUDE (prospect_id): the superprospects of a range with their prospect,
    // index-only (signals/utilization).
    index('targets_client_super_idx')
      .on(t.clientId, t.superDate, t.id)
      .where(sql`${t.superDate} is not null`),
    // The active targets of each cadence, counted index-only (dashboard/stats: a scan of a million
    // targets took most of the call at the reports bench's size). Keys repeat per cadence, so
    // deduplication keeps it small (about 6 MB for a million entries).
    index('targets_active_cadence_idx')
      .on(t.cadenceId, t.clientId)
      .where(sql`${t.isActive}`),
  ],
);

export const IMPORT_KINDS = ['targets', 'revenue'] as const;
export const IMPORT_STATUSES = ['uploaded', 'checked', 'queued', 'running', 'done', 'failed'] as const;
/** One bad row of a file import: row number (1 = first data row after the header), field, reason. */
export type ImportRowError = { row: number; field: string; reason: string };

/** A CSV file uploaded to fileforce, its column mapping, and the progress and report of its import. */
export const fileImports = pgTable(
  'file_imports',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: clientRef(),
    integrationId: integer('integration_id')
      .notNull()
      .references(() => integrations.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: IMPORT_KINDS }).notNull(),
    status: text('status', { enum: IMPORT_STATUSES }).notNull().default('uploaded'),
    fileName: text('file_name').notNull(),
    /** Where the upload is kept, relative to the data folder's uploads. */
    storageKey: text('storage_key').notNull(),
    byteSize: bigint('byte_size', { mode: 'number' }).notNull(),
    /** Header row as read from the file. */
    columns: jsonb('columns').$type<string[]>().notNull().default([]),
    /** Our field name → the file's column name. */
    mapping: jsonb('mapping').$type<Record<string, string>>().notNull().default({}),
    totalRows: integer('total_rows'),
    processedRows: integer('processed_rows').notNull().default(0),
    importedRows: integer('imported_rows').notNull().default(0),
    errorRows: integer('error_rows').notNull().default(0),
    /** Valid rows skipped because the address is suppressed in the client (issue 44). */
    suppressedRows: integer('suppressed_rows').notNull().default(0),
    /** First bad rows (capped), for the report. */
    errors: jsonb('errors').$type<ImportRowError[]>().notNull().default([]),
    failureReason: text('failure_reason'),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    ...timestamps,
  },
  (t) => [index('file_imports_client_idx').on(t.clientId, t.createdAt)],
);
