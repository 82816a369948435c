import { sql } from 'drizzle-orm';
import {
  bigserial,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';

export const EVENT_TYPES = ['impression', 'click', 'view'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Append-only engagement events (ARCHITECTURE.md §5), partitioned by month on `occurred_at`
 * (ARCHITECTURE.md §8; the migration declares the partitioning, which Drizzle cannot express). No
 * foreign keys: partitions stay cheap to attach and drop, and the tracking path stays lean.
 */
export const engagementEvents = pgTable(
  'engagement_events',
  {
    id: bigserial('id', { mode: 'number' }).notNull(),
    clientId: uuid('client_id').notNull(),
    targetId: uuid('target_id').notNull(),
    cadenceId: integer('cadence_id').notNull(),
    type: text('type', { enum: EVENT_TYPES }).notNull(),
    dayNumber: integer('day_number'),
    contentId: uuid('content_id'),
    /** Ad size for impressions (e.g. 300x250). */
    size: text('size'),
    /**
     * Why the event was judged a person's (decision 0017: `browser`, `gmail_proxy`, `apple_mail`…);
     * null for events recorded before verdicts, which count as a person's.
     */
    reason: text('reason'),
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.id, t.occurredAt] }),
    index('engagement_events_target_idx').on(t.targetId, t.occurredAt),
    index('engagement_events_client_idx').on(t.clientId, t.occurredAt),
    // The report feed's clicks and views, newest first (reports/signals.ts `reportFeed`): a page reads
    // its rows from this index alone, without the impressions around them.
    index('engagement_events_client_engaged_idx')
      .on(t.clientId, t.occurredAt.desc(), t.type, t.targetId)
      .where(sql`${t.type} in ('click', 'view')`),
    // A cadence's e-mail ad is installed from its first impression of the e-mail rendition
    // (decision 0020): only those rows are in this index, so finding the first is one probe.
    index('engagement_events_email_idx')
      .on(t.cadenceId, t.occurredAt)
      .where(sql`${t.type} = 'impression' and ${t.size} = 'email'`),
    // Also `engagement_events_client_views_idx` (client_id, occurred_at) INCLUDE (content_id,
    // target_id) WHERE type = 'view', in migration 0074 only: Drizzle cannot express INCLUDE.
  ],
);

export const VERDICTS = ['person', 'machine_open', 'scanner', 'bot'] as const;
export type Verdict = (typeof VERDICTS)[number];

/**
 * Impressions and clicks that were not a person's (decision 0017): Apple Mail's privacy prefetch,
 * mail security scanners, bots. Kept apart from `engagement_events` so that every reader of those
 * (counters, reports, billing, journeys) counts people only without a filter to forget.
 */
export const uncountedEvents = pgTable(
  'uncounted_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    clientId: uuid('client_id').notNull(),
    targetId: uuid('target_id').notNull(),
    cadenceId: integer('cadence_id').notNull(),
    type: text('type', { enum: EVENT_TYPES }).notNull(),
    verdict: text('verdict', { enum: VERDICTS }).notNull(),
    reason: text('reason').notNull(),
    dayNumber: integer('day_number'),
    contentId: uuid('content_id'),
    size: text('size'),
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    index('uncounted_events_target_idx').on(t.targetId, t.occurredAt),
    index('uncounted_events_client_idx').on(t.clientId, t.occurredAt),
  ],
);

export const FEED_ITEM_TYPES = ['super', 'click', 'view', 'sync', 'import', 'journey'] as const;

/** The activity feed of a client (new superprospects, clicks, landing page views, syncs). */
export const feedItems = pgTable(
  'feed_items',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    clientId: uuid('client_id').notNull(),
    type: text('type', { enum: FEED_ITEM_TYPES }).notNull(),
    targetId: uuid('target_id'),
    cadenceId: integer('cadence_id'),
    prospectId: uuid('prospect_id'),
    salesRepId: uuid('sales_rep_id'),
    /** What the item shows (names at the time, counts, source…). */
    data: jsonb('data').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('feed_items_client_idx').on(t.clientId, t.createdAt)],
);
