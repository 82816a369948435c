import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  date,
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
import { content } from './content.ts';
import { crmAccounts } from './crm.ts';

/** Networks Rally runs audiences on (issue 39, decision 0025). */
export const AD_NETWORK_NAMES = ['meta', 'linkedin', 'google'] as const;
export const AD_AUDIENCE_SOURCES = ['cohort', 'journey_stage', 'cadence'] as const;
export type AdAudienceSource = (typeof AD_AUDIENCE_SOURCES)[number];
/**
 * new: not pushed yet; queued/pushing: a push job is waiting or running; ready: pushed and matched
 * at or above the network's minimum; held: pushed (or not) but under the minimum, with `held_reason`;
 * failed: the last push stopped, with `push_error`.
 */
export const AD_AUDIENCE_STATES = ['new', 'queued', 'pushing', 'ready', 'held', 'failed'] as const;
export type AdAudienceState = (typeof AD_AUDIENCE_STATES)[number];
/**
 * What an audience under the network's minimum is pooled with (decision 0034): a journey stage with
 * its journey's cohort, a cadence with its rep's other cadences. Counts are members with a hashable
 * e-mail at the push that decided it.
 */
export type AdAudiencePool = {
  kind: 'cohort' | 'rep_cadences';
  /** In words: `cohort “Enterprise”`, `Dana Rep’s other cadences`. */
  name: string;
  cohortId?: string;
  cadenceIds?: number[];
  sourceCount: number;
  poolCount: number;
  minimum: number;
};
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
    /** The owner chose to pool it while under the network's minimum (decision 0034). */
    poolWhenSmall: boolean('pool_when_small').notNull().default(false),
    /** What it is pooled with now (the members sent are the pool's); null when it stands alone. */
    pooledWith: jsonb('pooled_with').$type<AdAudiencePool | null>(),
    /** The last pooling change in words ("Pooled with …", "Stopped pooling: …"). */
    poolNote: text('pool_note'),
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

/** Rally's wish for a network campaign: paused until launched (decision 0026). */
export const AD_CAMPAIGN_STATUSES = ['paused', 'active'] as const;
/** queued/pushing: a sync job is waiting or running; synced: the network has it as Rally has it. */
export const AD_CAMPAIGN_SYNC_STATES = ['queued', 'pushing', 'synced', 'failed'] as const;
export const AD_CAMPAIGN_OBJECTIVES = ['traffic', 'awareness', 'engagement'] as const;

/** One ad per placement size at the network, and what it was made from. */
export type AdCampaignAd = {
  size: string;
  /** The render's content hash: a new one means the ad was edited in Rally and is replaced. */
  renderKey: string;
  imageHash: string;
  creativeId: string;
  adId: string | null;
  effectiveStatus?: string | null;
  issues?: string | null;
};

/**
 * A campaign on an ad network for one audience (decision 0026): budget, schedule and objective set
 * in Rally, the ads rendered from a content item, the network's ids stored as each is made (a
 * retried job continues, never makes a second one), and the status read back in the network's words.
 */
export const adCampaigns = pgTable(
  'ad_network_campaigns',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: tenant(),
    audienceId: uuid('audience_id')
      .notNull()
      .references(() => adAudiences.id, { onDelete: 'cascade' }),
    contentId: uuid('content_id')
      .notNull()
      .references(() => content.id, { onDelete: 'no action' }),
    name: text('name').notNull(),
    objective: text('objective', { enum: AD_CAMPAIGN_OBJECTIVES }).notNull(),
    budgetKind: text('budget_kind', { enum: ['daily', 'lifetime'] }).notNull(),
    /** In the ad account's minor unit (cents). */
    budgetMinor: integer('budget_minor').notNull(),
    currency: text('currency'),
    startsAt: timestamp('starts_at', { withTimezone: true }).notNull(),
    endsAt: timestamp('ends_at', { withTimezone: true }),
    /** The landing page the ads link to, before Rally's token and UTM parameters are added. */
    landingUrl: text('landing_url').notNull(),
    /** Carried on the link (`rly_a`) so a visit is known to come from this audience's ads. */
    token: text('token').notNull(),
    status: text('status', { enum: AD_CAMPAIGN_STATUSES }).notNull().default('paused'),
    syncState: text('sync_state', { enum: AD_CAMPAIGN_SYNC_STATES }).notNull().default('queued'),
    syncError: text('sync_error'),
    networkCampaignId: text('network_campaign_id'),
    networkAdSetId: text('network_ad_set_id'),
    ads: jsonb('ads').$type<AdCampaignAd[]>().notNull().default([]),
    /** The network's delivery state and its words on what stops it, as last read. */
    effectiveStatus: text('effective_status'),
    issues: text('issues'),
    statusReadAt: timestamp('status_read_at', { withTimezone: true }),
    /** When the creatives were last made from the content (an edit after it replaces them). */
    creativesSyncedAt: timestamp('creatives_synced_at', { withTimezone: true }),
    /** When the network's daily results were last pulled, and its words when that failed. */
    statsPulledAt: timestamp('stats_pulled_at', { withTimezone: true }),
    statsError: text('stats_error'),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (t) => [
    index('ad_network_campaigns_client_idx').on(t.clientId),
    uniqueIndex('ad_network_campaigns_token_uq').on(t.token),
    check('ad_network_campaigns_budget_positive', sql`${t.budgetMinor} > 0`),
    check('ad_network_campaigns_schedule', sql`${t.endsAt} is null or ${t.endsAt} > ${t.startsAt}`),
  ],
);

/**
 * A network's daily results for one ad of a campaign (issue 39 "Results"), as the network reports
 * them: one row per ad and day in the ad account's time zone. The stats job replaces the rows of the
 * days it pulls (the network revises recent days), so pulling a day twice stores it once and a later
 * correction replaces it. Spend is in the account currency's minor unit (cents).
 */
export const adCampaignStats = pgTable(
  'ad_network_campaign_stats',
  {
    campaignId: uuid('campaign_id')
      .notNull()
      .references(() => adCampaigns.id, { onDelete: 'cascade' }),
    clientId: tenant(),
    /** The network's ad id (one ad per placement). */
    networkAdId: text('network_ad_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    impressions: bigint('impressions', { mode: 'number' }).notNull().default(0),
    reach: bigint('reach', { mode: 'number' }).notNull().default(0),
    clicks: bigint('clicks', { mode: 'number' }).notNull().default(0),
    spendMinor: bigint('spend_minor', { mode: 'number' }).notNull().default(0),
    pulledAt: timestamp('pulled_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.campaignId, t.networkAdId, t.day] }),
    index('ad_network_campaign_stats_client_day_idx').on(t.clientId, t.day),
  ],
);

/**
 * An organisation (company) a network reports engagement for, as its lookup API describes it
 * (LinkedIn "Organization Lookup API"), and the client's CRM account Rally matched it to: by the
 * website's domain, else by the vanity name against a domain's first label when exactly one account
 * has it. Unmatched organisations are matched again at every pull (the CRM may sync the account later).
 */
export const adNetworkOrganizations = pgTable(
  'ad_network_organizations',
  {
    clientId: tenant(),
    network: text('network', { enum: AD_NETWORK_NAMES }).notNull(),
    /** The network's id (LinkedIn: the number of `urn:li:organization:…`). */
    organizationId: text('organization_id').notNull(),
    name: text('name'),
    vanityName: text('vanity_name'),
    website: text('website'),
    /** Lower-cased host without "www.", the match key to crm_accounts.domain. */
    domain: text('domain'),
    crmAccountId: uuid('crm_account_id').references(() => crmAccounts.id, { onDelete: 'set null' }),
    /** How the match was made: 'domain' or 'vanity_name'; null while unmatched. */
    matchedBy: text('matched_by'),
    lookedUpAt: timestamp('looked_up_at', { withTimezone: true }),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.clientId, t.network, t.organizationId] }),
    index('ad_network_organizations_account_idx').on(t.crmAccountId),
  ],
);

/**
 * A network's daily engagement of one company with one campaign (issue 39 "Results": LinkedIn's
 * MEMBER_COMPANY pivot), as reported: companies under the network's privacy minimum are absent. The
 * stats job replaces the rows of the days it pulls, like ad_network_campaign_stats.
 */
export const adCompanyStats = pgTable(
  'ad_network_company_stats',
  {
    campaignId: uuid('campaign_id')
      .notNull()
      .references(() => adCampaigns.id, { onDelete: 'cascade' }),
    clientId: tenant(),
    network: text('network', { enum: AD_NETWORK_NAMES }).notNull(),
    organizationId: text('organization_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    impressions: bigint('impressions', { mode: 'number' }).notNull().default(0),
    clicks: bigint('clicks', { mode: 'number' }).notNull().default(0),
    pulledAt: timestamp('pulled_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.campaignId, t.organizationId, t.day] }),
    index('ad_network_company_stats_org_day_idx').on(t.clientId, t.network, t.organizationId, t.day),
  ],
);
