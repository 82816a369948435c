import { z } from 'zod';
import { uncountedSummarySchema } from './tracking.ts';

/** What the activity feed shows: new superprospects, ad clicks, landing page views, syncs, imports. */
export const FEED_ITEM_TYPES = ['super', 'click', 'view', 'sync', 'import', 'journey'] as const;
export type FeedItemType = (typeof FEED_ITEM_TYPES)[number];

export const FEED_TYPE_LABELS: Record<FeedItemType, string> = {
  super: 'New superprospect',
  click: 'Ad click',
  view: 'Landing page view',
  sync: 'Sync finished',
  import: 'File imported',
  journey: 'Journey stage move',
};

const iso = z.iso.datetime({ offset: true });

/**
 * One item of the feed, flat for the list and the live stream alike. Names are the current ones
 * (or those at the time, when the prospect, cadence or rep is gone). `detail` carries the item's
 * figures: impressions, clicks, views and reason ('click' or 'impressions') of a super; source of
 * a sync; file_name and imported_rows of an import.
 */
export const feedItemSchema = z.object({
  id: z.number().int(),
  type: z.enum(FEED_ITEM_TYPES),
  created_at: iso,
  target_id: z.string().nullable(),
  prospect_id: z.string().nullable(),
  prospect_name: z.string().nullable(),
  company_name: z.string().nullable(),
  cadence_id: z.number().int().nullable(),
  cadence_name: z.string().nullable(),
  sales_rep_id: z.string().nullable(),
  sales_rep_name: z.string().nullable(),
  detail: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
});
export type FeedItem = z.infer<typeof feedItemSchema>;

/** SPEC.md §9: "Cohort list and feed are paged by page and page_size." */
export const FEED_PAGE_SIZE_MAX = 100;
/** Items reachable by page (the newest); deeper offsets would make every page slower. */
export const FEED_MAX_OFFSET = 10_000;

export const feedPageQuery = z
  .object({
    page: z.coerce
      .number({ error: 'must be a page number from 1' })
      .int('must be a page number from 1')
      .min(1, 'must be a page number from 1')
      .default(1),
    page_size: z.coerce
      .number({ error: `must be a whole number from 1 to ${FEED_PAGE_SIZE_MAX}` })
      .int(`must be a whole number from 1 to ${FEED_PAGE_SIZE_MAX}`)
      .min(1, `must be a whole number from 1 to ${FEED_PAGE_SIZE_MAX}`)
      .max(FEED_PAGE_SIZE_MAX, `must be a whole number from 1 to ${FEED_PAGE_SIZE_MAX}`)
      .default(20),
    type: z.enum(FEED_ITEM_TYPES, { error: `must be one of ${FEED_ITEM_TYPES.join(', ')}` }).optional(),
    /** Pages of the feed as it stood at this item: items arriving later do not shift them. */
    until_id: z.coerce
      .number({ error: 'must be the id of a feed item' })
      .int('must be the id of a feed item')
      .positive('must be the id of a feed item')
      .max(Number.MAX_SAFE_INTEGER, 'must be the id of a feed item')
      .optional(),
  })
  .refine((q) => (q.page - 1) * q.page_size < FEED_MAX_OFFSET, {
    path: ['page'],
    message: `reaches past the newest ${FEED_MAX_OFFSET.toLocaleString('en')} items; narrow by type instead`,
  });
export type FeedPageQuery = z.input<typeof feedPageQuery>;

export const feedPageReply = z.object({
  items: z.array(feedItemSchema),
  page: z.number().int(),
  page_size: z.number().int(),
  /** Items in the feed (up to FEED_MAX_OFFSET; `total_capped` says there are more). */
  total: z.number().int(),
  total_capped: z.boolean(),
  has_more: z.boolean(),
});
export type FeedPageReply = z.infer<typeof feedPageReply>;

/** `GET /sc/dashboard/feed`: the feed at a glance and how to follow it live. */
export const feedSummaryReply = z.object({
  latest_id: z.number().int().nullable(),
  latest_at: iso.nullable(),
  /** Items of each type in the last 7 days. */
  last_7_days: z.record(z.enum(FEED_ITEM_TYPES), z.number().int()),
  /** Server-sent events of new items (`event: feed`, data a FeedItem); add `?client_id=`. */
  stream_url: z.string(),
  heartbeat_seconds: z.number().int(),
});
export type FeedSummary = z.infer<typeof feedSummaryReply>;

/** `GET /sc/dashboard/super/today`: new superprospects today and yesterday (UTC days). */
export const superTodayReply = z.object({
  date: z.iso.date(),
  time_zone: z.string(),
  count: z.number().int(),
  yesterday: z.number().int(),
});
export type SuperToday = z.infer<typeof superTodayReply>;

/** `GET /sc/dashboard/engagement/last`: the last 7 days against the 7 before, and the latest event. */
export const engagementLastReply = z.object({
  impressions: z.number().int(),
  clicks: z.number().int(),
  views: z.number().int(),
  previous: z.object({ impressions: z.number().int(), clicks: z.number().int(), views: z.number().int() }),
  /** Impressions and clicks of the last 7 days stored but not counted, and why (issue 38). */
  uncounted: uncountedSummarySchema,
  last_event: z
    .object({
      type: z.enum(['impression', 'click', 'view']),
      at: iso,
      prospect_name: z.string().nullable(),
      cadence_name: z.string().nullable(),
    })
    .nullable(),
});
export type EngagementLast = z.infer<typeof engagementLastReply>;

export const feedStreamQuery = z.object({
  client_id: z.uuid('must be the id (UUID) of the current client'),
  /** Resume after this item (EventSource sends Last-Event-ID by itself when it reconnects). */
  last_event_id: z.coerce.number().int().nonnegative().optional(),
});
