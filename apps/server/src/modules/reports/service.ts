import { eq, sql } from 'drizzle-orm';
import type {
  OpportunityDetail,
  OpportunityReportSort,
  ProgressedSort,
  SortOrder,
  PerformanceByDate,
  RevenueByMonth,
  ValueReport,
  PipelineGenerated,
  PipelineProgressed,
  ReportRangeQuery,
  ReportSummary,
} from '@rally/shared/schemas/reports';
import { ATTRIBUTION_WINDOW_DEFAULT_DAYS } from '@rally/shared/schemas/reports';
import type { Db } from '../../db/client.ts';
import { clientSettings, crmClientSettings } from '../../db/schema/index.ts';
import {
  engagementIn,
  engagedProspects,
  mainCurrency,
  opportunitiesIn,
  opportunityPages,
  opportunityById,
  performanceByDate,
  progressedMoves,
  opportunityTotals,
  rowsOf,
  generatedPage,
  generatedPages,
  generatedTotals,
  progressedPages,
  stageHistoryOf,
  wonByMonth,
  superprospectSpend,
} from './repository.ts';
import { refreshAttribution } from './attribution.ts';
import { networkSpend } from './network-spend.ts';
import type { OpportunityFilter, OpportunityRow, Range, View } from './repository.ts';
import { uncountedInRange } from '../tracking/uncounted.ts';

const DAY_MS = 86_400_000;
/** The range when the caller gives none: the 90 days up to now. */
const DEFAULT_RANGE_DAYS = 90;

/** The range asked for (epoch seconds, `to` exclusive), or the last 90 days; either end may be left out. */
export function rangeOf(q: ReportRangeQuery, now = new Date()): Range {
  const to = q.to !== undefined ? new Date(q.to * 1000) : now;
  const from =
    q.from !== undefined ? new Date(q.from * 1000) : new Date(to.getTime() - DEFAULT_RANGE_DAYS * DAY_MS);
  return { from, to: to > from ? to : new Date(from.getTime() + DAY_MS) };
}

export const epochOf = (r: Range) => ({
  from: Math.floor(r.from.getTime() / 1000),
  to: Math.floor(r.to.getTime() / 1000),
});

export async function windowDaysOf(db: Db, clientId: string): Promise<number> {
  const [row] = await db
    .select({ days: clientSettings.attributionWindowDays })
    .from(clientSettings)
    .where(eq(clientSettings.clientId, clientId));
  return row?.days ?? ATTRIBUTION_WINDOW_DEFAULT_DAYS;
}

/**
 * The window in force, once the client's stored attribution is up to date with it and with the
 * facts (attribution.ts): every report that reads an attribution asks this first.
 */
export async function attributionWindow(db: Db, clientId: string): Promise<number> {
  const windowDays = await windowDaysOf(db, clientId);
  await refreshAttribution(db, clientId, windowDays);
  return windowDays;
}

/** The stages a move must reach to count as progress: the selected and the valuable ones. */
async function progressStageIds(db: Db, clientId: string): Promise<string[]> {
  const [row] = await db.select().from(crmClientSettings).where(eq(crmClientSettings.clientId, clientId));
  return [...new Set([...(row?.selectedStageIds ?? []), ...(row?.valuableStageIds ?? [])])];
}

/**
 * The summary of a range. `progressed: false` (dashboard/stats, which shows no progressed pipeline)
 * leaves the progressed opportunities uncounted, at 0: counting them is most of the totals' work.
 */
export async function summary(
  db: Db,
  clientId: string,
  q: ReportRangeQuery,
  opts: { progressed?: boolean } = {},
): Promise<ReportSummary> {
  const range = rangeOf(q);
  const windowDays = await attributionWindow(db, clientId);
  const progressed = opts.progressed ?? true;
  // The main currency (a scan of the client's opportunities) is only needed by the totals: it runs
  // before them, beside the engagement statement, not before both.
  const opportunities = async () => {
    const [currency, stages] = await Promise.all([
      mainCurrency(db, clientId),
      progressed ? progressStageIds(db, clientId) : null,
    ]);
    return { currency, totals: await opportunityTotals(db, clientId, range, currency, stages) };
  };
  const [{ currency, totals }, engagement] = await Promise.all([
    opportunities(),
    engagementIn(db, clientId, range),
  ]);
  return { range: epochOf(range), window_days: windowDays, currency, ...totals, ...engagement };
}

const pageOf = (q: { page?: number; page_size?: number }) => {
  const pageSize = q.page_size ?? 50;
  const page = q.page ?? 1;
  return { page, page_size: pageSize, limit: pageSize, offset: (page - 1) * pageSize };
};

/**
 * A page of the generated opportunities (created in the range, newest first), with their number and
 * amount in all and per month. Only those created in the range: a won one closed in it but created
 * before is not this period's pipeline.
 */
export async function pipelineGenerated(
  db: Db,
  clientId: string,
  q: ReportRangeQuery & {
    page?: number;
    page_size?: number;
    sort?: OpportunityReportSort | undefined;
    order?: SortOrder | undefined;
  },
): Promise<PipelineGenerated> {
  const range = rangeOf(q);
  const windowDays = await attributionWindow(db, clientId);
  const p = pageOf(q);
  const [currency, items, totalsIn] = await Promise.all([
    mainCurrency(db, clientId),
    generatedPage(db, clientId, range, { ...p, sort: q.sort, order: q.order }),
    generatedTotals(db, clientId, range),
  ]);
  const totals = totalsIn(currency);
  return {
    range: epochOf(range),
    window_days: windowDays,
    currency,
    ...totals,
    items,
    page: p.page,
    page_size: p.page_size,
  };
}

/** Every generated opportunity of the range (the export), page by page as the CSV is streamed. */
export async function generatedExportPages(db: Db, clientId: string, q: ReportRangeQuery) {
  const range = rangeOf(q);
  await attributionWindow(db, clientId);
  return { range: epochOf(range), pages: generatedPages(db, clientId, range) };
}

export async function pipelineProgressed(
  db: Db,
  clientId: string,
  q: ReportRangeQuery & {
    page?: number;
    page_size?: number;
    sort?: ProgressedSort | undefined;
    order?: SortOrder | undefined;
  },
): Promise<PipelineProgressed> {
  const range = rangeOf(q);
  const windowDays = await attributionWindow(db, clientId);
  const p = pageOf(q);
  const { items, total } = await progressedMoves(db, clientId, range, await progressStageIds(db, clientId), {
    ...p,
    sort: q.sort,
    order: q.order,
  });
  return {
    range: epochOf(range),
    window_days: windowDays,
    total,
    items,
    page: p.page,
    page_size: p.page_size,
  };
}

/** Every counted move of the range (the export), page by page as the CSV is streamed. */
export async function progressedExportPages(db: Db, clientId: string, q: ReportRangeQuery) {
  const range = rangeOf(q);
  await attributionWindow(db, clientId);
  const stages = await progressStageIds(db, clientId);
  return { range: epochOf(range), pages: progressedPages(db, clientId, range, stages) };
}

export async function opportunityReport(
  db: Db,
  clientId: string,
  q: ReportRangeQuery & {
    filter: OpportunityFilter;
    page: number;
    page_size: number;
    sort?: OpportunityReportSort;
    order?: 'asc' | 'desc' | undefined;
  },
) {
  const range = rangeOf(q);
  await attributionWindow(db, clientId);
  const { items, total } = await opportunitiesIn(db, clientId, range, {
    filter: q.filter,
    sort: q.sort ?? 'created_at',
    order: q.order,
    limit: q.page_size,
    offset: (q.page - 1) * q.page_size,
  });
  return { items, total, page: q.page, page_size: q.page_size };
}

/** Every row of the opportunity report (the export), page by page as the CSV is streamed. */
export async function opportunityExportPages(
  db: Db,
  clientId: string,
  q: ReportRangeQuery & { filter: OpportunityFilter },
): Promise<AsyncGenerator<OpportunityRow[]>> {
  const range = rangeOf(q);
  await attributionWindow(db, clientId);
  return opportunityPages(db, clientId, range, q.filter);
}

export async function opportunityDetail(
  db: Db,
  clientId: string,
  opportunityId: string,
): Promise<OpportunityDetail | null> {
  // Another client's id (or none) is refused before anything is computed or stored.
  const [known] = rowsOf(
    await db.execute(sql`select 1 from opportunities
      where id = ${opportunityId} and client_id = ${clientId} and not is_deleted`),
  );
  if (!known) return null;
  const windowDays = await attributionWindow(db, clientId);
  const opportunity = await opportunityById(db, clientId, opportunityId);
  if (!opportunity) return null;
  const [prospects, stageHistory, crmRecord] = await Promise.all([
    engagedProspects(db, clientId, windowDays, opportunityId),
    stageHistoryOf(db, clientId, opportunityId),
    crmRecordOf(db, clientId, opportunityId),
  ]);
  return {
    opportunity,
    crm_record: crmRecord,
    window_days: windowDays,
    prospects,
    stage_history: stageHistory,
  };
}

const VENDOR_NAMES: Record<string, string> = { salesforce: 'Salesforce', hubspot: 'HubSpot' };

/** The opportunity's page in its CRM, from the link its connection stored when it was made. */
async function crmRecordOf(
  db: Db,
  clientId: string,
  opportunityId: string,
): Promise<{ url: string; vendor: string } | null> {
  const [row] = rowsOf(
    await db.execute(sql`select i.source, i.opportunity_url_template as template, o.external_id
      from opportunities o join integrations i on i.id = o.integration_id and i.client_id = o.client_id
     where o.id = ${opportunityId} and o.client_id = ${clientId}`),
  ) as { source: string; template: string | null; external_id: string }[];
  if (!row?.template || !row.template.includes('{id}')) return null;
  return {
    url: row.template.replace('{id}', encodeURIComponent(row.external_id)),
    vendor: VENDOR_NAMES[row.source] ?? row.source,
  };
}

export async function performance(
  db: Db,
  clientId: string,
  q: ReportRangeQuery & { view: View },
): Promise<PerformanceByDate> {
  const range = rangeOf(q);
  const [rows, uncounted] = await Promise.all([
    performanceByDate(db, clientId, range, q.view),
    uncountedInRange(db, clientId, range.from, range.to),
  ]);
  return { range: epochOf(range), view: q.view, rows, uncounted };
}

/** Won and influenced revenue per month of the close date, in the main currency, every month listed. */
export async function revenueByMonth(db: Db, clientId: string, q: ReportRangeQuery): Promise<RevenueByMonth> {
  const range = rangeOf(q);
  const windowDays = await attributionWindow(db, clientId);
  const months: string[] = [];
  let d = new Date(Date.UTC(range.from.getUTCFullYear(), range.from.getUTCMonth(), 1));
  for (; d < range.to; d = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)))
    months.push(d.toISOString().slice(0, 7));
  const currency = await mainCurrency(db, clientId);
  const sums = new Map(
    (
      await wonByMonth(db, clientId, range, currency, {
        from: `${months[0]}-01`,
        to: d.toISOString().slice(0, 10),
      })
    ).map((r) => [r.month, r]),
  );
  const rows = months.map(
    (month) =>
      sums.get(month) ?? { month, won: 0, revenue_won_cents: 0, influenced: 0, revenue_influenced_cents: 0 },
  );
  return { range: epochOf(range), window_days: windowDays, currency, rows };
}

export async function valueReport(db: Db, clientId: string, q: ReportRangeQuery): Promise<ValueReport> {
  const [s, fee, network] = await Promise.all([
    summary(db, clientId, q),
    superprospectSpend(db, clientId, rangeOf(q)),
    networkSpend(db, clientId, rangeOf(q)),
  ]);
  // Rally's fee and the networks' spend are weighed together when they share a currency (issue 39);
  // without a fee, the currency the networks spent most in leads.
  const spend = fee.cents === 0 && network[0] ? { ...fee, currency: network[0].currency } : fee;
  const networkCents = network.filter((n) => n.currency === spend.currency).reduce((t, n) => t + n.cents, 0);
  const cost = spend.cents + networkCents;
  const per = (cents: number) => (cost > 0 ? Math.round((cents / cost) * 10) / 10 : null);
  return {
    range: s.range,
    window_days: s.window_days,
    currency: s.currency,
    superprospects_billed: spend.count,
    spend_cents: spend.cents,
    spend_currency: spend.currency,
    network_spend_cents: networkCents,
    network_spend_other: network.filter((n) => n.currency !== spend.currency),
    pipeline_generated_cents: s.pipeline_generated_cents,
    pipeline_progressed_cents: s.pipeline_progressed_cents,
    revenue_influenced_cents: s.revenue_influenced_cents,
    pipeline_per_spend: per(s.pipeline_generated_cents),
    revenue_per_spend: per(s.revenue_influenced_cents),
  };
}
