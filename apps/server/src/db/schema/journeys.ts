import {
  bigserial,
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
import { companies } from './integrations.ts';
import { cohorts } from './cohorts.ts';

/** A stage's rule as stored (see @rally/shared/schemas/journeys). */
export type StoredJourneyRule = {
  kind: string;
  value: number | null;
  crm_stage_id: string | null;
  /** The window of a network engagement rule (days); absent on rules stored before it. */
  days?: number | null;
};

const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
};

const tenant = () =>
  uuid('client_id')
    .notNull()
    .references(() => clients.id, { onDelete: 'cascade' });

/**
 * A journey (issue 18, docs/decisions/0010): ordered stages for one cohort. One per cohort: the
 * stages are the days of the cohort's hidden cadence (stage at position k = cadence day k), so a
 * member's ad is its account's stage content through the unchanged ad path.
 */
export const journeys = pgTable(
  'journeys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: tenant(),
    cohortId: uuid('cohort_id')
      .notNull()
      .references(() => cohorts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    /** The last finished evaluation of its rules. */
    evaluatedAt: timestamp('evaluated_at', { withTimezone: true }),
    /** The last account id of the run under way (accounts in id order): a run that died goes on after it. */
    evalCursor: uuid('eval_cursor'),
    /**
     * The last full evaluation (every account read). Null asks for one: a new journey, changed stages.
     * Between full runs a run reads only the accounts in journey_dirty_accounts (decision 0036).
     */
    fullEvaluatedAt: timestamp('full_evaluated_at', { withTimezone: true }),
    ...timestamps,
  },
  (t) => [uniqueIndex('journeys_cohort_uq').on(t.cohortId), index('journeys_client_idx').on(t.clientId)],
);

/** A stage: `position` from 1 (the cadence day), its ads and the rules that move an account into it. */
export const journeyStages = pgTable(
  'journey_stages',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: tenant(),
    journeyId: uuid('journey_id')
      .notNull()
      .references(() => journeys.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    name: text('name').notNull(),
    contentIds: jsonb('content_ids').$type<string[]>().notNull().default([]),
    rules: jsonb('rules').$type<StoredJourneyRule[]>().notNull().default([]),
    match: text('match', { enum: ['any', 'all'] })
      .notNull()
      .default('any'),
    ...timestamps,
  },
  (t) => [index('journey_stages_journey_idx').on(t.journeyId, t.position)],
);

/**
 * Where an account stands in a journey. `account_id` is the member's company id, or its prospect id
 * when it has none (one-person account). Written only by the journey job (entries and forward moves).
 */
export const journeyAccounts = pgTable(
  'journey_accounts',
  {
    journeyId: uuid('journey_id')
      .notNull()
      .references(() => journeys.id, { onDelete: 'cascade' }),
    accountId: uuid('account_id').notNull(),
    clientId: tenant(),
    companyId: uuid('company_id').references(() => companies.id, { onDelete: 'set null' }),
    stageId: uuid('stage_id')
      .notNull()
      .references(() => journeyStages.id),
    /** The stage it entered the journey in (the funnel over time counts from it). */
    entryStageId: uuid('entry_stage_id').references(() => journeyStages.id, { onDelete: 'set null' }),
    joinedAt: timestamp('joined_at', { withTimezone: true }).notNull().defaultNow(),
    stageEnteredAt: timestamp('stage_entered_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.journeyId, t.accountId] }),
    // With the entry time: the accounts of a stage whose "days in stage" came due (decision 0036).
    index('journey_accounts_stage_entered_idx').on(t.journeyId, t.stageId, t.stageEnteredAt),
  ],
);

/**
 * Accounts whose data a journey's rules read changed since its last evaluation (decision 0036):
 * written by triggers on targets (impressions, clicks, views), cohort_members, opportunities and
 * opportunity_stage_history (migration 0064); taken (deleted) by the journey job in the transaction
 * that evaluates them. No unique key, so concurrent writers never wait on one another: an account
 * can be listed more than once.
 */
export const journeyDirtyAccounts = pgTable(
  'journey_dirty_accounts',
  {
    journeyId: uuid('journey_id')
      .notNull()
      .references(() => journeys.id, { onDelete: 'cascade' }),
    accountId: uuid('account_id').notNull(),
  },
  (t) => [index('journey_dirty_accounts_idx').on(t.journeyId, t.accountId)],
);

/** A forward move of an account (the journey view's moves, a feed item each). */
export const journeyMoves = pgTable(
  'journey_moves',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    clientId: tenant(),
    journeyId: uuid('journey_id')
      .notNull()
      .references(() => journeys.id, { onDelete: 'cascade' }),
    accountId: uuid('account_id').notNull(),
    companyId: uuid('company_id').references(() => companies.id, { onDelete: 'set null' }),
    fromStageId: uuid('from_stage_id').references(() => journeyStages.id, { onDelete: 'set null' }),
    toStageId: uuid('to_stage_id').references(() => journeyStages.id, { onDelete: 'set null' }),
    fromStage: text('from_stage'),
    toStage: text('to_stage').notNull(),
    /** The rule kinds of the stage moved into that held, comma-separated. */
    reason: text('reason').notNull().default(''),
    movedAt: timestamp('moved_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('journey_moves_journey_idx').on(t.journeyId, t.movedAt),
    index('journey_moves_account_idx').on(t.journeyId, t.accountId),
  ],
);
