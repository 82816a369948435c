import { sql } from 'drizzle-orm';
import {
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';
import { clients } from './identity.ts';
import { opportunities } from './crm.ts';
import { opportunityStageHistory } from './crm.ts';

/**
 * Stored attribution (docs/reports.md "Stored attribution"): each opportunity's and each stage
 * move's result of the attribution model, so a report over a range reads one row per opportunity
 * instead of its account's engagement. The rows are a cache of what the model computes from the
 * facts: triggers (migration 0023) record in `attribution_dirty` what a write may have changed,
 * and a report refreshes the client's rows before reading (reports/attribution.ts).
 */
export const opportunityAttribution = pgTable(
  'opportunity_attribution',
  {
    opportunityId: uuid('opportunity_id')
      .primaryKey()
      .references(() => opportunities.id, { onDelete: 'cascade' }),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    /** The opportunity's company when computed: a change of that account's ties clears the row. */
    companyId: uuid('company_id'),
    windowDays: integer('window_days').notNull(),
    /** The first engagement of the account within the window before the opportunity was created. */
    generatedAt: timestamp('generated_at', { withTimezone: true }),
    generatedProspects: integer('generated_prospects').notNull().default(0),
    /** Prospects engaged within the window before a won opportunity closed (0 when not won). */
    influencedProspects: integer('influenced_prospects').notNull().default(0),
    /**
     * False while an event written now could still change the row (its moment is less than five
     * minutes before it was computed, or after): such rows are computed again on every refresh.
     */
    final: boolean('final').notNull(),
    computedAt: timestamp('computed_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('opportunity_attribution_client_idx').on(t.clientId),
    index('opportunity_attribution_company_idx').on(t.companyId),
    index('opportunity_attribution_unsettled_idx')
      .on(t.clientId)
      .where(sql`not ${t.final}`),
  ],
);

export const stageMoveAttribution = pgTable(
  'stage_move_attribution',
  {
    historyId: uuid('history_id')
      .primaryKey()
      .references(() => opportunityStageHistory.id, { onDelete: 'cascade' }),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    opportunityId: uuid('opportunity_id').notNull(),
    companyId: uuid('company_id'),
    /** The move's stages, as in its history row: counting progress then reads no other table but the catalogue. */
    fromStageId: uuid('from_stage_id'),
    toStageId: uuid('to_stage_id'),
    windowDays: integer('window_days').notNull(),
    changedAt: timestamp('changed_at', { withTimezone: true }).notNull(),
    /** The last engagement of the account within the window before the move; null: none. */
    engagedAt: timestamp('engaged_at', { withTimezone: true }),
    final: boolean('final').notNull(),
    computedAt: timestamp('computed_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // Progressed: the engaged moves of a client in a period. Migration 0026 builds it with INCLUDE
    // (stages, opportunity, history id, engagement), which Drizzle cannot declare, so the count of a
    // range reads the index alone.
    index('stage_move_attribution_engaged_idx')
      .on(t.clientId, t.changedAt)
      .where(sql`${t.engagedAt} is not null`),
    index('stage_move_attribution_company_idx').on(t.companyId),
    index('stage_move_attribution_opportunity_idx').on(t.opportunityId),
    index('stage_move_attribution_unsettled_idx')
      .on(t.clientId)
      .where(sql`not ${t.final}`),
  ],
);

export const ATTRIBUTION_DIRTY_KINDS = [
  'all',
  'new',
  'company',
  'domain',
  'opportunity',
  'prospect',
] as const;

/**
 * What writes may have changed since the stored attribution was computed, written by triggers:
 * `all` (the whole client), `new` (opportunities or moves without a row), `company` and
 * `opportunity` (by `ref`), `domain` (the accounts an e-mail domain ties prospects to), `prospect`
 * (the accounts a prospect is tied to now: its events changed).
 */
export const attributionDirty = pgTable(
  'attribution_dirty',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    clientId: uuid('client_id').notNull(),
    kind: text('kind', { enum: ATTRIBUTION_DIRTY_KINDS }).notNull(),
    ref: uuid('ref'),
    domain: text('domain'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('attribution_dirty_client_idx').on(t.clientId)],
);

/** The window the client's stored rows were computed with: another one clears them all. */
export const attributionState = pgTable('attribution_state', {
  clientId: uuid('client_id')
    .primaryKey()
    .references(() => clients.id, { onDelete: 'cascade' }),
  windowDays: integer('window_days').notNull(),
  refreshedAt: timestamp('refreshed_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Report replies computed in the last minute, shared by every instance (issue 43: dashboard/stats may
 * serve a result computed in the last 60 s for the same client and range, with its time). In the
 * database rather than each instance's memory, so every instance serves the same result with the same
 * "as of" (reports/report-results.ts).
 */
export const reportResults = pgTable(
  'report_results',
  {
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    report: text('report').notNull(),
    /** The request's range as asked (`from`, `to`; empty when left out). */
    key: text('key').notNull(),
    computedAt: timestamp('computed_at', { withTimezone: true }).notNull(),
    body: jsonb('body').notNull(),
  },
  (t) => [primaryKey({ columns: [t.clientId, t.report, t.key] })],
);
