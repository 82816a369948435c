import { z } from 'zod';
import { uncountedSummarySchema } from './tracking.ts';

/** Columns the prospects list sorts by. */
export const PROSPECT_SORTS = [
  'name',
  'company',
  'email',
  'title',
  'super_date',
  'impressions',
  'cadences',
] as const;
export type ProspectSort = (typeof PROSPECT_SORTS)[number];
export type SortOrder = 'asc' | 'desc';

/** The order a column sorts in when none is asked for: newest supers and most impressions first. */
export const DEFAULT_PROSPECT_ORDER: Record<ProspectSort, SortOrder> = {
  name: 'asc',
  company: 'asc',
  email: 'asc',
  title: 'asc',
  super_date: 'desc',
  impressions: 'desc',
  cadences: 'desc',
};

export const PROSPECT_PAGE_SIZES = [25, 50, 100] as const;
export const MAX_PROSPECT_PAGE_SIZE = 100;
export const PROSPECT_SEARCH_MAX = 100;

const yesNo = (what: string) =>
  z.enum(['true', 'false'], { error: `must be true or false (${what})` }).optional();

/**
 * `GET /sc/prospects`: keyset paging (`cursor` is the `next_cursor` of the page before), so page
 * 10,000 costs what page 1 does. Filters combine with AND; cadence, sales rep and super apply to the
 * same cadence entry (a prospect super in cadence A but not in B matches `cadence_id=B&super=false`).
 */
export const prospectListQuery = z.object({
  /** Part of the name, e-mail, title or company name; case-insensitive. */
  search: z
    .string()
    .trim()
    .max(PROSPECT_SEARCH_MAX, `must be at most ${PROSPECT_SEARCH_MAX} characters`)
    .optional(),
  sort: z.enum(PROSPECT_SORTS, { error: `must be one of ${PROSPECT_SORTS.join(', ')}` }).default('name'),
  /** Defaults to DEFAULT_PROSPECT_ORDER of the sort. */
  order: z.enum(['asc', 'desc'], { error: 'must be asc or desc' }).optional(),
  cadence_id: z.coerce
    .number({ error: 'must be a cadence id' })
    .int('must be a cadence id')
    .positive('must be a cadence id')
    .max(2_147_483_647, 'must be a cadence id')
    .optional(),
  sales_rep_id: z.uuid('must be the id (UUID) of a sales rep').optional(),
  /**
   * true: only entries of the sales reps whose e-mail is the signed-in user's (issue 42 item 9: an
   * SDR's own prospects); none when no rep of the client has it.
   */
  mine: yesNo("the signed-in user's own prospects only, or everyone's"),
  super: yesNo('super prospects only, or none'),
  active: yesNo('active prospects only, or inactive only'),
  page_size: z.coerce
    .number({ error: `must be a whole number from 1 to ${MAX_PROSPECT_PAGE_SIZE}` })
    .int(`must be a whole number from 1 to ${MAX_PROSPECT_PAGE_SIZE}`)
    .min(1, `must be a whole number from 1 to ${MAX_PROSPECT_PAGE_SIZE}`)
    .max(MAX_PROSPECT_PAGE_SIZE, `must be a whole number from 1 to ${MAX_PROSPECT_PAGE_SIZE}`)
    .default(50),
  cursor: z.string().max(2000, 'is not a cursor of this list').optional(),
});
export type ProspectListQuery = z.input<typeof prospectListQuery>;

/** SPEC.md §3 "Prospect": each cadence entry. `engagements` is clicks plus landing page views. */
export const prospectCadenceSchema = z.object({
  cadence_id: z.number().int(),
  cadence_name: z.string(),
  target_id: z.uuid(),
  assignee_id: z.uuid().nullable(),
  assignee_name: z.string().nullable(),
  engagements: z.number().int(),
  impressions: z.number().int(),
  super_date: z.iso.datetime({ offset: true }).nullable(),
  is_active: z.boolean(),
  day_number: z.number().int(),
  /**
   * The entry's ad tag (ARCHITECTURE.md §5 `GET /t/{token}/ad/{size}.png`, the 300x250 ad): each
   * load shows the ad of the target's current day and counts an impression. Secret-bearing: anyone
   * with it can count engagement for this target.
   */
  ad_tag_url: z.string().describe('The 300x250 ad tag of this cadence entry; each load counts an impression'),
  /** The entry's click tag (`GET /t/{token}/c`): counts a click and redirects to the landing page. */
  click_url: z
    .string()
    .describe('The click tag of this cadence entry; counts a click and redirects to the landing page'),
  /**
   * Impressions and clicks of this entry stored but not counted, and why (issue 38). Only on
   * `GET /sc/prospects/{id}` (the drawer); the list leaves it out.
   */
  uncounted: uncountedSummarySchema.optional(),
});
export type ProspectCadence = z.infer<typeof prospectCadenceSchema>;

/**
 * SPEC.md §3 "Prospect". `target_id` is the cadence entry the row stands for: under the super_date or
 * impressions sort the entry that placed it, otherwise the first of `cadences` (entries matching the
 * filters first, then latest super, then most impressions).
 */
export const prospectSchema = z.object({
  id: z.uuid(),
  first_name: z.string(),
  last_name: z.string(),
  title: z.string(),
  target_id: z.uuid().nullable(),
  company_name: z.string().nullable(),
  company_id: z.uuid().nullable(),
  company_website: z.string().nullable(),
  is_active: z.boolean(),
  photo_url: z.string().nullable(),
  email: z.string().nullable(),
  cadences: z.array(prospectCadenceSchema),
});
export type Prospect = z.infer<typeof prospectSchema>;

export const prospectListReply = z.object({
  items: z.array(prospectSchema),
  /** Pass as `cursor` for the next page; null on the last page. */
  next_cursor: z.string().nullable(),
  sort: z.enum(PROSPECT_SORTS),
  order: z.enum(['asc', 'desc']),
  page_size: z.number().int(),
});
export type ProspectListReply = z.infer<typeof prospectListReply>;

export const prospectIdParams = z.object({ id: z.uuid('must be the id (UUID) of a prospect') });
