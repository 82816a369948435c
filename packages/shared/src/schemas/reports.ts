import { z } from 'zod';
import { pageQueryFields } from './common.ts';
import { boundedRangeQuery } from './range.ts';
import { uncountedSummarySchema } from './tracking.ts';

/**
 * Pipeline and revenue reports (issue 17; docs/reports.md is the attribution model). Report dates
 * travel as epoch seconds (SPEC.md §9).
 */

/** Attribution window: how long before an opportunity's moment an engagement still counts. */
export const ATTRIBUTION_WINDOW_DEFAULT_DAYS = 90;
export const ATTRIBUTION_WINDOW_MAX_DAYS = 365;
/** The longest range one report reads (a little over three years). */
export const REPORT_MAX_RANGE_DAYS = 1100;

/** `from` and `to` (epoch seconds, `to` exclusive); the last 90 days when both are left out. */
export const reportRangeQuery = boundedRangeQuery(REPORT_MAX_RANGE_DAYS);
export type ReportRangeQuery = z.infer<typeof reportRangeQuery>;

const range = z.object({ from: z.number().int(), to: z.number().int() });
const money = z.number().int();

/** `GET /report/client/{id}/summary`: the headline numbers of the Revenue screen. */
export const reportSummarySchema = z.object({
  range,
  window_days: z.number().int(),
  /** The currency the amounts are in (the client's most used); others are counted, not summed. */
  currency: z.string(),
  other_currency_opportunities: z.number().int(),
  opportunities_created: z.number().int(),
  pipeline_created_cents: money,
  generated: z.number().int(),
  pipeline_generated_cents: money,
  progressed: z.number().int(),
  pipeline_progressed_cents: money,
  won: z.number().int(),
  revenue_won_cents: money,
  influenced: z.number().int(),
  revenue_influenced_cents: money,
  engaged_accounts: z.number().int(),
  impressions: z.number().int(),
  clicks: z.number().int(),
  views: z.number().int(),
  new_superprospects: z.number().int(),
});
export type ReportSummary = z.infer<typeof reportSummarySchema>;

/** One opportunity as the reports show it, with what tied it to Rally's ads. */
export const reportOpportunitySchema = z.object({
  id: z.uuid(),
  name: z.string(),
  account_name: z.string(),
  company_id: z.uuid().nullable(),
  amount_cents: money,
  currency: z.string(),
  stage: z.string(),
  is_closed: z.boolean(),
  is_won: z.boolean(),
  /** When the CRM created it; null for a revenue file import, which gives no such date. */
  created_at: z.iso.datetime({ offset: true }).nullable(),
  close_date: z.string().nullable(),
  /** First engagement of the account within the window before the opportunity was created. */
  generated_engaged_at: z.iso.datetime({ offset: true }).nullable(),
  /** Engagement of the account within the window before it was won (closed-won only). */
  influenced: z.boolean(),
  /** Prospects of the account with an engagement in the window before creation or close. */
  engaged_prospects: z.number().int(),
});
export type ReportOpportunity = z.infer<typeof reportOpportunitySchema>;

export const OPPORTUNITY_REPORT_FILTERS = ['all', 'generated', 'influenced', 'open', 'won', 'lost'] as const;

/** `page` and `page_size` of a report's table (exports read every row). */
const pageFields = pageQueryFields;

/** Columns the opportunity report sorts by (issue 42 item 11); newest first by default. */
export const OPPORTUNITY_REPORT_SORTS = ['created_at', 'name', 'stage', 'attribution', 'amount'] as const;
export type OpportunityReportSort = (typeof OPPORTUNITY_REPORT_SORTS)[number];

export const opportunityReportQuery = reportRangeQuery.and(
  z.object({
    filter: z
      .enum(OPPORTUNITY_REPORT_FILTERS, {
        message: `must be one of ${OPPORTUNITY_REPORT_FILTERS.join(', ')}`,
      })
      .default('all'),
    sort: z
      .enum(OPPORTUNITY_REPORT_SORTS, { error: `must be one of ${OPPORTUNITY_REPORT_SORTS.join(', ')}` })
      .default('created_at'),
    /** Defaults to desc for created_at, amount and attribution, asc for name and stage. */
    order: z.enum(['asc', 'desc'], { error: 'must be asc or desc' }).optional(),
    ...pageFields,
  }),
);
/** The range and a page: `pipeline/generated` and `pipeline/progressed`. */
export const pagedRangeQuery = reportRangeQuery.and(z.object(pageFields));
export type PagedRangeQuery = z.infer<typeof pagedRangeQuery>;

export type SortOrder = 'asc' | 'desc';
/**
 * `sort` (one of a report's allow-listed columns) and `order` of a table paged by the server (issue
 * 42 item 11): the same pair as the opportunity report, so every report table asks the same way.
 * Without `sort` a report keeps its own order; without `order` a column takes its natural one
 * (numbers and dates descending, text ascending).
 */
export function sortFields<const C extends readonly [string, ...string[]]>(columns: C) {
  return {
    sort: z.enum(columns, { error: `must be one of ${columns.join(', ')}` }).optional(),
    order: z.enum(['asc', 'desc'], { error: 'must be asc or desc' }).optional(),
  };
}

/** Columns `pipeline/progressed` sorts by (its moves table's columns). */
export const PROGRESSED_SORTS = ['name', 'move', 'moved_at', 'engaged_at', 'amount'] as const;
export type ProgressedSort = (typeof PROGRESSED_SORTS)[number];
/** `pipeline/generated`: the range, a page, and a sort by the opportunity report's columns. */
export const generatedQuery = reportRangeQuery.and(
  z.object({ ...pageFields, ...sortFields(OPPORTUNITY_REPORT_SORTS) }),
);
export const progressedQuery = reportRangeQuery.and(
  z.object({ ...pageFields, ...sortFields(PROGRESSED_SORTS) }),
);
export const opportunityReportPage = z.object({
  items: z.array(reportOpportunitySchema),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
});
export type OpportunityReportPage = z.infer<typeof opportunityReportPage>;

/**
 * `GET /report/client/{id}/pipeline/generated`: opportunities created after an engagement, a page of
 * them (newest first), with their number and amount, and per month of creation (UTC) for the chart.
 * Amounts are in the client's main currency, as in the summary.
 */
export const pipelineGeneratedSchema = z.object({
  range,
  window_days: z.number().int(),
  currency: z.string(),
  total: z.number().int(),
  amount_cents: money,
  by_month: z.array(z.object({ month: z.string(), opportunities: z.number().int(), amount_cents: money })),
  items: z.array(reportOpportunitySchema),
  page: z.number().int(),
  page_size: z.number().int(),
});
export type PipelineGenerated = z.infer<typeof pipelineGeneratedSchema>;

/** One stage move counted as progress. */
export const stageMoveSchema = z.object({
  opportunity_id: z.uuid(),
  name: z.string(),
  account_name: z.string(),
  amount_cents: money,
  currency: z.string(),
  from_stage: z.string(),
  to_stage: z.string(),
  moved_at: z.iso.datetime({ offset: true }),
  /** The account's last engagement before the move (within the window). */
  engaged_at: z.iso.datetime({ offset: true }),
});
export type StageMove = z.infer<typeof stageMoveSchema>;

/** `GET /report/client/{id}/pipeline/progressed`: a page of the counted moves, newest first. */
export const pipelineProgressedSchema = z.object({
  range,
  window_days: z.number().int(),
  total: z.number().int(),
  items: z.array(stageMoveSchema),
  page: z.number().int(),
  page_size: z.number().int(),
});
export type PipelineProgressed = z.infer<typeof pipelineProgressedSchema>;

/** `GET /report/client/{id}/opportunity/{opportunityId}`: the people and moves behind one opportunity. */
export const opportunityDetailSchema = z.object({
  opportunity: reportOpportunitySchema,
  /** The record in the CRM's own screens (Salesforce, HubSpot); null for a file import or the demo. */
  crm_record: z.object({ url: z.url(), vendor: z.string() }).nullable(),
  window_days: z.number().int(),
  prospects: z.array(
    z.object({
      prospect_id: z.uuid(),
      name: z.string(),
      email: z.string().nullable(),
      title: z.string(),
      impressions: z.number().int(),
      clicks: z.number().int(),
      views: z.number().int(),
      first_engaged_at: z.iso.datetime({ offset: true }),
      last_engaged_at: z.iso.datetime({ offset: true }),
    }),
  ),
  stage_history: z.array(
    z.object({
      from_stage: z.string().nullable(),
      to_stage: z.string(),
      changed_at: z.iso.datetime({ offset: true }),
    }),
  ),
});
export type OpportunityDetail = z.infer<typeof opportunityDetailSchema>;

/** SPEC.md §5: report views. One row per day, ISO week (from Monday) or month. */
export const REPORT_VIEWS = ['daily', 'weekly', 'monthly'] as const;
export type ReportView = (typeof REPORT_VIEWS)[number];

export const performanceQuery = reportRangeQuery.and(
  z.object({
    view: z.enum(REPORT_VIEWS, { message: `must be one of ${REPORT_VIEWS.join(', ')}` }).default('daily'),
  }),
);

/** `GET /sc/performance/by_date`: engagement per period, every period of the range listed. */
export const performanceByDateSchema = z.object({
  range,
  view: z.enum(REPORT_VIEWS),
  rows: z.array(
    z.object({
      /** The period's first day, YYYY-MM-DD (UTC). */
      date: z.string(),
      impressions: z.number().int(),
      clicks: z.number().int(),
      views: z.number().int(),
      new_superprospects: z.number().int(),
    }),
  ),
  /** Impressions and clicks of the range stored but not counted, and why (issue 38). */
  uncounted: uncountedSummarySchema,
});
export type PerformanceByDate = z.infer<typeof performanceByDateSchema>;

/** `GET /sc/revenue`: revenue won and influenced per month of the range (docs/reports.md). */
export const revenueByMonthSchema = z.object({
  range,
  window_days: z.number().int(),
  currency: z.string(),
  rows: z.array(
    z.object({
      month: z.string(),
      won: z.number().int(),
      revenue_won_cents: money,
      influenced: z.number().int(),
      revenue_influenced_cents: money,
    }),
  ),
});
export type RevenueByMonth = z.infer<typeof revenueByMonthSchema>;

/**
 * `GET /report/client/{id}/value_report`: what the client spent on superprospects in the range
 * against the pipeline and revenue Rally's ads were behind — the return a buyer asks about.
 */
export const valueReportSchema = z.object({
  range,
  window_days: z.number().int(),
  /** The currency of the pipeline and revenue amounts (the client's most used). */
  currency: z.string(),
  /** Superprospects billed with a super date in the range, and what they cost (Rally's billing currency). */
  superprospects_billed: z.number().int(),
  spend_cents: money,
  spend_currency: z.string(),
  /** What the ad networks reported spending in the range, in spend_currency (issue 39); weighed in the ratios. */
  network_spend_cents: money,
  /** Network spend in other currencies: shown beside, not weighed against the results. */
  network_spend_other: z.array(z.object({ currency: z.string(), cents: money })),
  pipeline_generated_cents: money,
  pipeline_progressed_cents: money,
  revenue_influenced_cents: money,
  /** Pipeline generated per unit spent (Rally's fee plus network spend); null without spend. */
  pipeline_per_spend: z.number().nullable(),
  /** Revenue influenced per unit spent; null without spend. */
  revenue_per_spend: z.number().nullable(),
});
export type ValueReport = z.infer<typeof valueReportSchema>;
