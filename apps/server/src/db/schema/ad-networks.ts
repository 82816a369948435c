import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { clients, users } from './identity.ts';
import { cadences } from './integrations.ts';
import { cohorts } from './cohorts.ts';
import { journeyStages } from './journeys.ts';

/** Networks Rally runs audiences on (issue 39); LinkedIn and Google join later (decision 0025). */
export const AD_NETWORK_NAMES = ['meta'] as const;
export const AD_AUDIENCE_SOURCES = ['cohort', 'journey_stage', 'cadence'] as const;
export type AdAudienceSource = (typeof AD_AUDIENCE_SOURCES)[number];
/**
 * new: not pushed yet; queued/pushing: a push job is waiting or running; ready: pushed and matched
 * at or above the network's minimum; held: pushed (or not) but under the minimum, with `held_reason`;
 * failed: the last push stopped, with `push_error`.
 */
export const AD_AUDIENCE_STATES = ['new', 'queued', 'pushing', 'ready', 'held', 'failed'] as const;
export type AdAudienceState = (typeof AD_AUDIENCE_STATES)[number];
/** A member's push state: to be added, at the network, to be removed. */
export const AD_MEMBER_STATES = ['add', 'added', 'remove'] as const;

const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
};

const tenant = () =>
  uuid('client_id')
    .notNull()
    .references(() => clients.id, { onDelete: 'cascade' });

/**
 * A client's connection to an ad network (decision 0025): OAuth tokens sealed with APP_SECRET, the
 * ad account and page chosen, and active/inactive with the network's reason in words for the user.
 */
export const adNetworkConnections = pgTable(
  'ad_network_connections',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: tenant(),
    network: text('network', { enum: AD_NETWORK_NAMES }).notNull(),
    /** Sealed JSON of the adapter's OAuthCredentials. */
    credentialsEnc: text('credentials_enc').notNull(),
    /** Who connected at the network (the Meta user's name). */
    accountName: text('account_name'),
    adAccountId: text('ad_account_id'),
    adAccountName: text('ad_account_name'),
    pageId: text('page_id'),
    pageName: text('page_name'),
    isActive: boolean('is_active').notNull().default(true),
    /** Why it is inactive, in the network's words (a revoked token, a password change…). */
    inactiveReason: text('inactive_reason'),
    connectedBy: uuid('connected_by').references(() => users.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (t) => [uniqueIndex('ad_network_connections_client_network_uq').on(t.clientId, t.network)],
);

/**
 * A matched audience on one network built from a cohort, a journey stage or a cadence. Exactly one
 * source column is set (the check below); one audience per source and connection.
 */
export const adAudiences = pgTable(
  'ad_audiences',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: tenant(),
    connectionId: uuid('connection_id')
      .notNull()
      .references(() => adNetworkConnections.id, { onDelete: 'cascade' }),
    sourceKind: text('source_kind', { enum: AD_AUDIENCE_SOURCES }).notNull(),
    cohortId: uuid('cohort_id').references(() => cohorts.id, { onDelete: 'cascade' }),
    journeyStageId: uuid('journey_stage_id').references(() => journeyStages.id, { onDelete: 'cascade' }),
    cadenceId: integer('cadence_id').references(() => cadences.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** The network's audience id once created there. */
    networkAudienceId: text('network_audience_id'),
    /** The ad account it was created in (an audience stays in its account). */
    adAccountId: text('ad_account_id'),
    state: text('state', { enum: AD_AUDIENCE_STATES }).notNull().default('new'),
    heldReason: text('held_reason'),
    pushError: text('push_error'),
    /** Members with a hashable e-mail at the last push (what the network was sent). */
    memberCount: integer('member_count').notNull().default(0),
    /** The network's matched size (Meta approximate_count_lower_bound / _upper_bound). */
    matchedLower: integer('matched_lower'),
    matchedUpper: integer('matched_upper'),
    matchedAt: timestamp('matched_at', { withTimezone: true }),
    lastPushedAt: timestamp('last_pushed_at', { withTimezone: true }),
    /** What the last push sent: members added and removed, and requests made. */
    lastPush: jsonb('last_push').$type<{ added: number; removed: number; requests: number } | null>(),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (t) => [
    index('ad_audiences_client_idx').on(t.clientId),
    check(
      'ad_audiences_one_source',
      sql`num_nonnulls(${t.cohortId}, ${t.journeyStageId}, ${t.cadenceId}) = 1`,
    ),
    uniqueIndex('ad_audiences_source_uq').on(
      t.connectionId,
      t.sourceKind,
      sql`coalesce(${t.cohortId}::text, ${t.journeyStageId}::text, ${t.cadenceId}::text)`,
    ),
  ],
);

/**
 * Per-member push state of an audience, by e-mail hash (never the address): `add` not yet at the
 * network, `added` there, `remove` to be taken out. A push sends only `add` and `remove` rows, so a
 * later run sends the difference and a run that died half-way sends each member once more at most.
 */
export const adAudienceMembers = pgTable(
  'ad_audience_members',
  {
    audienceId: uuid('audience_id')
      .notNull()
      .references(() => adAudiences.id, { onDelete: 'cascade' }),
    clientId: tenant(),
    hash: text('hash').notNull(),
    state: text('state', { enum: AD_MEMBER_STATES }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.audienceId, t.hash] }),
    index('ad_audience_members_state_idx').on(t.audienceId, t.state),
  ],
);
