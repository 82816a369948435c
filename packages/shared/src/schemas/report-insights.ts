import { z } from 'zod';
import { reportRangeQuery, sortFields } from './reports.ts';
import type { ReportRangeQuery } from './reports.ts';

export type { ReportRangeQuery };

/**
 * The account, signal, content and search reports of `/v1/report/client/{id}/…` (issue 17; SPEC.md
 * §7 "Reports and others"). Ranges are epoch seconds (SPEC.md §9); docs/reports.md says what each
 * number counts and which call opens it.
 */

const range = z.object({ from: z.number().int(), to: z.number().int() });
const at = z.iso.datetime({ offset: true });
const count = z.number().int();

const page = z.coerce
  .number({ error: 'must be a whole number' })
  .int('must be a whole number')
  .min(1, 'must be at least 1')
  .max(100_000, 'must be at most 100000')
  .default(1);
const pageSize = z.coerce
  .number({ error: 'must be a whole number' })
  .int('must be a whole number')
  .min(1, 'must be at least 1')
  .max(200, 'must be at most 200')
  .default(50);
export const pagingQuery = z.object({ page, page_size: pageSize });
const paged = { total: count, page: count, page_size: count };

// ---------------------------------------------------------------- alignment

/**
 * Which accounts the sales team and Rally's ads both worked: `both`, `outreach_only` (CRM outreach
 * activity, no ad engagement), `ads_only` (ad engagement, no outreach); `engaged` is `both` and
 * `ads_only` together, the summary's engaged accounts (issue 42 item 7: the Revenue card opens them).
 */
export const ALIGNMENT_SEGMENTS = ['all', 'both', 'outreach_only', 'ads_only', 'engaged'] as const;
export type AlignmentSegment = (typeof ALIGNMENT_SEGMENTS)[number];
const segment = z
  .enum(ALIGNMENT_SEGMENTS, { message: `must be one of ${ALIGNMENT_SEGMENTS.join(', ')}` })
  .default('all');
/**
 * Columns the alignment sorts by. Not engaged prospects: they are counted for a page's rows only
 * (an account's prospects and their last events), so ordering by them would count every account.
 */
export const ALIGNMENT_SORTS = [
  'name',
  'segment',
  'outreach',
  'last_outreach',
  'impressions',
  'clicks',
  'views',
] as const;
export type AlignmentSort = (typeof ALIGNMENT_SORTS)[number];
export const alignmentQuery = reportRangeQuery
  .and(pagingQuery)
  .and(z.object({ segment, ...sortFields(ALIGNMENT_SORTS) }));
export const alignmentExportQuery = reportRangeQuery.and(z.object({ segment }));

export const alignmentAccountSchema = z.object({
  account_id: z.uuid(),
  name: z.string(),
  website: z.string().nullable(),
  segment: z.enum(['both', 'outreach_only', 'ads_only']),
  /** Outreach activities (the CRM's outreach definition) of the account's contacts active in the range. */
  outreach_activities: count,
  outreach_contacts: count,
  last_outreach_at: at.nullable(),
  impressions: count,
  clicks: count,
  views: count,
  engaged_prospects: count,
  last_engaged_at: at.nullable(),
});
export type AlignmentAccount = z.infer<typeof alignmentAccountSchema>;

export const alignmentSchema = z.object({
  range,
  /** The CRM activity types counted as outreach (the CRM settings' outreach definition). */
  outreach_activity_types: z.array(z.string()),
  counts: z.object({ both: count, outreach_only: count, ads_only: count, total: count }),
  items: z.array(alignmentAccountSchema),
  ...paged,
});
export type Alignment = z.infer<typeof alignmentSchema>;

// ---------------------------------------------------------------- one target

export const targetReportSchema = z.object({
  target_id: z.uuid(),
  prospect_id: z.uuid(),
  name: z.string(),
  email: z.string().nullable(),
  title: z.string(),
  company_id: z.uuid().nullable(),
  company_name: z.string().nullable(),
  cadence_id: count,
  cadence_name: z.string(),
  sales_rep: z.string().nullable(),
  day_number: count,
  is_active: z.boolean(),
  impressions: count,
  clicks: count,
  views: count,
  super_date: at.nullable(),
});
export type TargetReport = z.infer<typeof targetReportSchema>;

export const targetStatsSchema = z.object({
  range,
  target_id: z.uuid(),
  impressions: count,
  clicks: count,
  views: count,
  /** Clicks per impression in the range; null without impressions. */
  ctr: z.number().nullable(),
  days_engaged: count,
  first_engaged_at: at.nullable(),
  last_engaged_at: at.nullable(),
  super_date: at.nullable(),
  /** Outreach activities of the prospect's CRM contact (all time, as the CRM totals them). */
  outreach_activities: count,
  last_outreach_at: at.nullable(),
  /** Open opportunities of the prospect's accounts, and their amount. */
  open_opportunities: count,
  open_pipeline_cents: z.number().int(),
  by_content: z.array(
    z.object({
      content_id: z.uuid().nullable(),
      name: z.string(),
      impressions: count,
      clicks: count,
      views: count,
    }),
  ),
});
export type TargetStats = z.infer<typeof targetStatsSchema>;

export const ACTIVITY_KINDS = ['impression', 'click', 'view', 'crm_activity', 'stage_move'] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];
export const activityItemSchema = z.object({
  at,
  kind: z.enum(ACTIVITY_KINDS),
  /** What happened, in words: the ad's name, the activity type and count, or the move "A → B". */
  detail: z.string(),
  content_id: z.uuid().nullable(),
  opportunity_id: z.uuid().nullable(),
  /** CRM activity: how many of that type the contact has (the CRM gives totals with the last time). */
  count: count.nullable(),
});
export type ActivityItem = z.infer<typeof activityItemSchema>;
export const targetActivitiesQuery = reportRangeQuery.and(pagingQuery);
export const targetActivitiesSchema = z.object({ range, items: z.array(activityItemSchema), ...paged });
export type TargetActivities = z.infer<typeof targetActivitiesSchema>;

// ---------------------------------------------------------------- buying group

export const buyingGroupMemberSchema = z.object({
  prospect_id: z.uuid().nullable(),
  contact_id: z.uuid().nullable(),
  name: z.string(),
  email: z.string().nullable(),
  title: z.string(),
  role: z.string(),
  is_primary: z.boolean(),
  impressions: count,
  clicks: count,
  views: count,
  last_engaged_at: at.nullable(),
  super_date: at.nullable(),
  outreach_activities: count,
  /** A target of the prospect, to open its timeline (`target/{id}/activities`). */
  target_id: z.uuid().nullable(),
});
export type BuyingGroupMember = z.infer<typeof buyingGroupMemberSchema>;
export const NO_ROLE = 'No role';
export const buyingGroupSchema = z.object({
  range,
  account: z.object({ id: z.uuid(), name: z.string(), website: z.string().nullable() }),
  /** Roles in order: named roles by name, "No role" last. */
  roles: z.array(
    z.object({
      role: z.string(),
      members: z.array(buyingGroupMemberSchema),
      impressions: count,
      clicks: count,
      views: count,
    }),
  ),
  members: count,
  engaged_members: count,
  open_opportunities: count,
});
export type BuyingGroup = z.infer<typeof buyingGroupSchema>;

// ---------------------------------------------------------------- dashboard

export const dashboardStatsSchema = z.object({
  range,
  currency: z.string(),
  active_cadences: count,
  active_targets: count,
  engaged_targets: count,
  engaged_accounts: count,
  impressions: count,
  clicks: count,
  views: count,
  ctr: z.number().nullable(),
  new_superprospects: count,
  superprospects_contacted: count,
  open_opportunities: count,
  open_pipeline_cents: z.number().int(),
  pipeline_generated_cents: z.number().int(),
  revenue_influenced_cents: z.number().int(),
  /**
   * When these numbers were computed (issue 43): a reply may be one computed up to 60 s before for
   * the same client and range, shared by every instance; show it as "as of HH:MM:SS".
   */
  as_of: at,
});
export type DashboardStats = z.infer<typeof dashboardStatsSchema>;

// ---------------------------------------------------------------- signals

export const UTILIZATION_FILTERS = ['all', 'contacted', 'not_contacted'] as const;
export type UtilizationFilter = (typeof UTILIZATION_FILTERS)[number];
const utilizationFilter = z
  .enum(UTILIZATION_FILTERS, { message: `must be one of ${UTILIZATION_FILTERS.join(', ')}` })
  .default('all');
/** Columns signals/utilization sorts by. */
export const UTILIZATION_SORTS = ['name', 'cadence', 'rep', 'super', 'contacted', 'days'] as const;
export type UtilizationSort = (typeof UTILIZATION_SORTS)[number];
export const utilizationQuery = reportRangeQuery
  .and(pagingQuery)
  .and(z.object({ filter: utilizationFilter, ...sortFields(UTILIZATION_SORTS) }));
export const utilizationExportQuery = reportRangeQuery.and(z.object({ filter: utilizationFilter }));
export const utilizationRowSchema = z.object({
  target_id: z.uuid(),
  prospect_id: z.uuid(),
  name: z.string(),
  email: z.string().nullable(),
  company_name: z.string().nullable(),
  cadence_name: z.string(),
  sales_rep: z.string().nullable(),
  super_date: at,
  /** The last outreach activity of the prospect's CRM contact, when it came after the super date. */
  contacted_at: at.nullable(),
  days_to_contact: z.number().nullable(),
});
export type UtilizationRow = z.infer<typeof utilizationRowSchema>;
export const utilizationSchema = z.object({
  range,
  outreach_activity_types: z.array(z.string()),
  superprospects: count,
  contacted: count,
  /** contacted / superprospects, 0–1; null without superprospects. */
  share: z.number().nullable(),
  items: z.array(utilizationRowSchema),
  ...paged,
});
export type Utilization = z.infer<typeof utilizationSchema>;

// ---------------------------------------------------------------- feed

export const REPORT_FEED_KINDS = ['click', 'view', 'super', 'stage_move'] as const;
export const reportFeedQuery = reportRangeQuery.and(pagingQuery);
export const reportFeedItemSchema = z.object({
  at,
  kind: z.enum(REPORT_FEED_KINDS),
  /** Who or what: the prospect's name, or the opportunity's. */
  title: z.string(),
  detail: z.string(),
  target_id: z.uuid().nullable(),
  opportunity_id: z.uuid().nullable(),
});
export type ReportFeedItem = z.infer<typeof reportFeedItemSchema>;
export const reportFeedSchema = z.object({ range, items: z.array(reportFeedItemSchema), ...paged });
export type ReportFeed = z.infer<typeof reportFeedSchema>;

// ---------------------------------------------------------------- priority

export const PRIORITY_DAYS_DEFAULT = 30;
/** Columns pipeline/priority sorts by (`priority`: the marked accounts' opportunities). */
export const PRIORITY_SORTS = [
  'priority',
  'name',
  'stage',
  'amount',
  'score',
  'impressions',
  'clicks',
  'views',
  'last_engaged',
] as const;
export type PrioritySort = (typeof PRIORITY_SORTS)[number];
export const priorityQuery = pagingQuery.and(
  z.object({
    ...sortFields(PRIORITY_SORTS),
    days: z.coerce
      .number({ error: 'must be a whole number of days' })
      .int('must be a whole number of days')
      .min(1, 'must be at least 1')
      .max(365, 'must be at most 365')
      .default(PRIORITY_DAYS_DEFAULT),
  }),
);
export const priorityExportQuery = z.object({
  days: z.coerce
    .number({ error: 'must be a whole number of days' })
    .int('must be a whole number of days')
    .min(1, 'must be at least 1')
    .max(365, 'must be at most 365')
    .default(PRIORITY_DAYS_DEFAULT),
});
export const priorityRowSchema = z.object({
  opportunity_id: z.uuid(),
  name: z.string(),
  account_name: z.string(),
  company_id: z.uuid().nullable(),
  stage: z.string(),
  amount_cents: z.number().int(),
  currency: z.string(),
  close_date: z.string().nullable(),
  impressions: count,
  clicks: count,
  views: count,
  engaged_prospects: count,
  last_engaged_at: at.nullable(),
  /** impressions + 5 × clicks + 5 × landing page views in the last `days` days. */
  score: count,
  /**
   * The account is marked as a sales priority (`POST /v1/rest/client/{id}/sales/priority`), itself
   * or through a marked target of one of its prospects. Marked opportunities come first.
   */
  is_priority: z.boolean(),
  /** When it was marked (the earliest mark that applies); null when not marked. */
  priority_marked_at: at.nullable(),
});
export type PriorityRow = z.infer<typeof priorityRowSchema>;
/**
 * `from` is where the ranked engagement starts: the local midnight `days - 1` days before today in
 * `time_zone` (the client's), so the list ranks by whole days, today so far included (issue 43).
 */
export const prioritySchema = z.object({
  days: count,
  from: at,
  time_zone: z.string(),
  items: z.array(priorityRowSchema),
  ...paged,
});
export type Priority = z.infer<typeof prioritySchema>;

/**
 * `POST /v1/rest/client/{id}/sales/priority` (body) and `DELETE …` (query): one account (a Rally
 * company, `account_id`) or one target (`target_id`), exactly one of the two.
 */
export const salesPriorityInput = z
  .object({
    account_id: z.uuid('must be the id (UUID) of an account (company)').optional(),
    target_id: z.uuid('must be the id (UUID) of a target').optional(),
  })
  .superRefine((v, ctx) => {
    if ((v.account_id === undefined) === (v.target_id === undefined))
      ctx.addIssue({
        code: 'custom',
        path: [v.account_id === undefined ? 'account_id' : 'target_id'],
        message:
          v.account_id === undefined
            ? 'is required: give account_id or target_id'
            : 'must not be given with account_id: mark one account or one target',
      });
  });
export type SalesPriorityInput = z.infer<typeof salesPriorityInput>;
export const salesPrioritySchema = z.object({
  kind: z.enum(['account', 'target']),
  account_id: z.uuid().nullable(),
  target_id: z.uuid().nullable(),
  is_priority: z.boolean(),
  marked_at: at.nullable(),
});
export type SalesPriority = z.infer<typeof salesPrioritySchema>;

// ---------------------------------------------------------------- search

export const reportSearchQuery = z.object({
  search: z
    .string({ error: 'must be text' })
    .trim()
    .min(2, 'must be at least 2 characters')
    .max(100, 'must be at most 100 characters'),
  limit: z.coerce
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(20, 'must be at most 20')
    .default(5),
});
export const reportSearchSchema = z.object({
  search: z.string(),
  prospects: z.array(
    z.object({
      prospect_id: z.uuid(),
      name: z.string(),
      email: z.string().nullable(),
      title: z.string(),
      company_name: z.string().nullable(),
      target_id: z.uuid().nullable(),
    }),
  ),
  companies: z.array(z.object({ account_id: z.uuid(), name: z.string(), website: z.string().nullable() })),
  cadences: z.array(z.object({ cadence_id: count, name: z.string(), status: z.string() })),
  content: z.array(
    z.object({ content_id: z.uuid(), name: z.string(), title: z.string(), status: z.string() }),
  ),
});
export type ReportSearch = z.infer<typeof reportSearchSchema>;

// ---------------------------------------------------------------- content

export const contentPerformanceSchema = z.object({
  content_id: z.uuid(),
  name: z.string(),
  title: z.string(),
  status: z.string(),
  is_archived: z.boolean(),
  landing_page_id: z.uuid().nullable(),
  impressions: count,
  clicks: count,
  views: count,
  targets_reached: count,
  /** Clicks per impression; null without impressions. */
  ctr: z.number().nullable(),
});
export type ContentPerformance = z.infer<typeof contentPerformanceSchema>;
export const landingPagePerformanceSchema = z.object({
  landing_page_id: z.uuid(),
  name: z.string(),
  /** Clicks on the ads that lead to the page, and the page's views. */
  clicks: count,
  views: count,
  targets_reached: count,
  /** Views per click; null without clicks. */
  view_rate: z.number().nullable(),
});
export type LandingPagePerformance = z.infer<typeof landingPagePerformanceSchema>;
export const contentReportSchema = z.object({
  range,
  ads: z.array(contentPerformanceSchema),
  landing_pages: z.array(landingPagePerformanceSchema),
});
export type ContentReport = z.infer<typeof contentReportSchema>;
export const CONTENT_EXPORT_KINDS = ['ads', 'landing_pages'] as const;
export const contentExportQuery = reportRangeQuery.and(
  z.object({
    kind: z
      .enum(CONTENT_EXPORT_KINDS, { message: `must be one of ${CONTENT_EXPORT_KINDS.join(', ')}` })
      .default('ads'),
  }),
);
export const contentDetailSchema = z.object({
  range,
  content: contentPerformanceSchema,
  by_date: z.array(z.object({ date: z.string(), impressions: count, clicks: count, views: count })),
  /** The targets that engaged with it in the range, most engaged first (at most 200). */
  targets: z.array(
    z.object({
      target_id: z.uuid(),
      prospect_id: z.uuid(),
      name: z.string(),
      company_name: z.string().nullable(),
      cadence_name: z.string(),
      impressions: count,
      clicks: count,
      views: count,
      last_engaged_at: at,
    }),
  ),
});
export type ContentDetail = z.infer<typeof contentDetailSchema>;
