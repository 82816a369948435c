import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type {
  DashboardStats,
  Priority,
  PriorityRow,
  PrioritySort,
  ReportFeed,
  ReportFeedItem,
  ReportRangeQuery,
  Utilization,
  UtilizationFilter,
  UtilizationRow,
  UtilizationSort,
} from '@rally/shared/schemas/report-insights';
import type { SortOrder } from '@rally/shared/schemas/reports';
import type { Db } from '../../db/client.ts';
import { cursorPages, mapPages } from '../../db/cursor.ts';
import {
  accountEngagementIn,
  ensureAccountMonths,
  prospectTies,
  readAccountEngagement,
  withoutParallelWorkers,
} from './account-rollups.ts';
import { engagedProspects, outreachCte, outreachTypes } from './accounts.ts';
import { iso, num, openOpportunity, rowsOf } from './repository.ts';
import type { Range, Row } from './repository.ts';
import { attributionWindow, epochOf, rangeOf, summary } from './service.ts';
import { recentResult } from './report-results.ts';
import { orderBySort } from './report-sort.ts';
import type { SortKeys } from './report-sort.ts';

/**
 * Signal reports (docs/reports.md "Signals"): whether reps acted on superprospects, the report feed,
 * open opportunities ranked by recent engagement, and the dashboard's headline numbers.
 */

const DAY_MS = 86_400_000;
const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 10_000) / 10_000 : null);
const paging = (q: { page?: number; page_size?: number }, limit?: number) => {
  const pageSize = limit ?? q.page_size ?? 50;
  const page = limit ? 1 : (q.page ?? 1);
  return { page, pageSize, offset: (page - 1) * pageSize };
};

// ---------------------------------------------------------------- signals/utilization

/**
 * Targets that became superprospects in the range, each with the last outreach activity of its
 * prospect's CRM contact when that came at or after the super date. The CRM gives activity totals
 * with their last time, so "contacted after becoming super" is "the last outreach activity is at or
 * after the super date".
 *
 * CTEs `outreach` and `contacted (target_id, contacted_at)`: the superprospects of the range that
 * were contacted, found as one join from the outreach counts (a few per CRM contact) rather than
 * one look-up per superprospect. The count, the page and the filters read the superprospects of
 * the range from targets' `targets_client_super_idx`, newest first, and only a page's rows are
 * joined to their names.
 */
function contactedCte(clientId: string, range: Range): SQL {
  return sql`${outreachCte(clientId, { from: range.from })},
    contacted as (
      select t.id as target_id, max(ou.last_activity_at) as contacted_at
        from outreach ou
        join crm_contacts cc on cc.id = ou.contact_id and cc.client_id = ${clientId}
        join targets t on t.prospect_id = cc.prospect_id and t.client_id = ${clientId}
       where t.super_date >= ${range.from} and t.super_date < ${range.to}
         and ou.last_activity_at >= t.super_date and ou.last_activity_at >= ${range.from}
       group by t.id
    )`;
}

/** The superprospects of the range (alias `t`); a target always has its prospect and cadence. */
const supersOf = (clientId: string, range: Range) =>
  sql`t.client_id = ${clientId} and t.super_date >= ${range.from} and t.super_date < ${range.to}`;

const UTILIZATION_WHERE: Record<UtilizationFilter, SQL> = {
  all: sql`true`,
  contacted: sql`t.id in (select target_id from contacted)`,
  not_contacted: sql`t.id not in (select target_id from contacted)`,
};

/**
 * The superprospects of the range as rows, newest first, each with the range's counts (`n`,
 * `n_contacted`); `limit` null gives every row (the export). One statement, so `contacted` is
 * computed once for the counts, the filter and the rows.
 */
function utilizationStatement(
  clientId: string,
  range: Range,
  filter: UtilizationFilter,
  limit: number | null,
  offset: number,
  sort?: { sort?: UtilizationSort | undefined; order?: SortOrder | undefined },
): SQL {
  // Newest first reads the range's superprospects from their index alone; another column's order
  // joins every superprospect of the range to what it sorts by, and numbers the rows (rn) so the
  // page keeps that order once joined to its names.
  const page = sort?.sort
    ? sql`select t.id, row_number() over (order by ${orderBySort(UTILIZATION_ORDER[sort.sort], sort.order, sql`t.id`)}) as rn
          from targets t
          join prospects p on p.id = t.prospect_id
          join cadences cd on cd.id = t.cadence_id
          left join sales_reps r on r.id = t.sales_rep_id
          left join contacted c on c.target_id = t.id
         where ${supersOf(clientId, range)} and ${UTILIZATION_WHERE[filter]}
         order by rn
         limit ${limit} offset ${offset}`
    : sql`select t.id, null::bigint as rn from targets t
         where ${supersOf(clientId, range)} and ${UTILIZATION_WHERE[filter]}
         order by t.super_date desc, t.id
         limit ${limit} offset ${offset}`;
  return sql`
      with ${contactedCte(clientId, range)},
      page as (${page}),
      counts as (
        select (select count(*) from targets t where ${supersOf(clientId, range)}) as n,
               (select count(*) from contacted) as n_contacted
      )
      select counts.n, counts.n_contacted, x.* from counts left join (
        select t.id as target_id, p.id as prospect_id, trim(p.first_name || ' ' || p.last_name) as name,
               p.email, co.name as company_name, cd.name as cadence_name,
               nullif(trim(coalesce(r.first_name, '') || ' ' || coalesce(r.last_name, '')), '') as sales_rep,
               t.super_date, c.contacted_at, page.rn
          from page
          join targets t on t.id = page.id
          join prospects p on p.id = t.prospect_id
          join cadences cd on cd.id = t.cadence_id
          left join companies co on co.id = p.company_id
          left join sales_reps r on r.id = t.sales_rep_id
          left join contacted c on c.target_id = t.id
      ) x on true
       order by ${sort?.sort ? sql`x.rn` : sql`x.super_date desc, x.target_id`}`;
}

/** The column sorts of signals/utilization (aliases t, p, cd, r, c of its page). */
const UTILIZATION_ORDER: Record<UtilizationSort, SortKeys> = {
  name: {
    keys: [sql`lower(coalesce(nullif(trim(p.first_name || ' ' || p.last_name), ''), p.email))`],
    order: 'asc',
  },
  cadence: { keys: [sql`lower(cd.name)`], order: 'asc' },
  rep: {
    keys: [sql`lower(nullif(trim(coalesce(r.first_name, '') || ' ' || coalesce(r.last_name, '')), ''))`],
    order: 'asc',
  },
  super: { keys: [sql`t.super_date`], order: 'desc' },
  contacted: { keys: [sql`c.contacted_at`], order: 'desc' },
  days: { keys: [sql`c.contacted_at - t.super_date`], order: 'desc' },
};

/** A row of `utilizationStatement` that names a superprospect (the counts' row alone does not). */
const isSuperRow = (r: Row) => r.target_id !== null && r.target_id !== undefined;

function toUtilizationRow(r: Row): UtilizationRow {
  const superDate = iso(r.super_date) ?? '';
  const contactedAt = iso(r.contacted_at);
  return {
    target_id: String(r.target_id),
    prospect_id: String(r.prospect_id),
    name: String(r.name),
    email: (r.email as string | null) ?? null,
    company_name: (r.company_name as string | null) ?? null,
    cadence_name: String(r.cadence_name),
    sales_rep: (r.sales_rep as string | null) ?? null,
    super_date: superDate,
    contacted_at: contactedAt,
    days_to_contact: contactedAt
      ? Math.round(((Date.parse(contactedAt) - Date.parse(superDate)) / DAY_MS) * 10) / 10
      : null,
  };
}

export async function utilization(
  db: Db,
  clientId: string,
  q: ReportRangeQuery & {
    filter: UtilizationFilter;
    page?: number;
    page_size?: number;
    sort?: UtilizationSort | undefined;
    order?: SortOrder | undefined;
  },
  opts: { limit?: number } = {},
): Promise<Utilization> {
  const range = rangeOf(q);
  const { page, pageSize, offset } = paging(q, opts.limit);
  // One process: alone it is as fast (about 95 ms at the reports bench's size) and beside the
  // dashboard's other statements it no longer takes both cores.
  const [result, types] = await Promise.all([
    withoutParallelWorkers(db, utilizationStatement(clientId, range, q.filter, pageSize, offset, q)),
    outreachTypes(db, clientId),
  ]);
  const all = rowsOf(result);
  const c = all[0] ?? {};
  const items = all.filter(isSuperRow).map(toUtilizationRow);
  const n = num(c.n);
  const contacted = num(c.n_contacted);
  return {
    range: epochOf(range),
    outreach_activity_types: types,
    superprospects: n,
    contacted,
    share: ratio(contacted, n),
    items,
    total: { all: n, contacted, not_contacted: n - contacted }[q.filter],
    page,
    page_size: pageSize,
  };
}

/** Every superprospect of the range as filtered, newest first, page by page (the export). */
export function utilizationExport(
  db: Db,
  clientId: string,
  q: ReportRangeQuery & { filter: UtilizationFilter },
) {
  const range = rangeOf(q);
  const pages = cursorPages(db, utilizationStatement(clientId, range, q.filter, null, 0));
  return { range: epochOf(range), pages: mapPages(pages, toUtilizationRow, isSuperRow) };
}

// ---------------------------------------------------------------- feed

/**
 * The report feed: ad clicks and landing page views (impressions are too many to read one by one;
 * they are in the performance report), targets becoming superprospects, and opportunity stage
 * moves, newest first.
 *
 * Each of the three kinds is read newest first through its own index (engagement_events'
 * `engagement_events_client_engaged_idx`, targets' `targets_client_super_idx`, opportunity_stage_history's
 * `(client_id, changed_at)`), limited to the rows a page can need (`offset + page_size`), and only
 * those are merged and sorted: the newest N of the union are among the newest N of each part, so a
 * page is exact and costs its depth, not the range's size.
 */
function feedParts(clientId: string, range: Range, limit: number | null): SQL {
  return sql`
   (select e.occurred_at as at, e.type as kind, trim(p.first_name || ' ' || p.last_name) as title,
           case when e.type = 'click' then 'Clicked an ad' else 'Viewed the landing page' end
             || coalesce(' · ' || co.name, '') || ' · ' || cd.name as detail,
           t.id as target_id, null::uuid as opportunity_id
      from engagement_events e
      join targets t on t.id = e.target_id and t.client_id = ${clientId}
      join prospects p on p.id = t.prospect_id
      join cadences cd on cd.id = t.cadence_id
      left join companies co on co.id = p.company_id
     ${feedEventsWhere(clientId, range)}
     order by e.occurred_at desc, e.type, e.target_id
     limit ${limit})
    union all
   (select t.super_date, 'super', trim(p.first_name || ' ' || p.last_name),
           'Became a superprospect' || coalesce(' · ' || co.name, '') || ' · ' || cd.name, t.id, null
      from targets t
      join prospects p on p.id = t.prospect_id
      join cadences cd on cd.id = t.cadence_id
      left join companies co on co.id = p.company_id
     ${feedSupersWhere(clientId, range)}
     order by t.super_date desc, t.id
     limit ${limit})
    union all
   (select h.changed_at, 'stage_move', o.name,
           o.account_name || ': ' || coalesce(coalesce(fs.label, h.from_stage) || ' → ', 'created in ')
             || coalesce(ts.label, h.to_stage),
           null, o.id
      from opportunity_stage_history h
      join opportunities o on o.id = h.opportunity_id and o.client_id = ${clientId} and not o.is_deleted
      left join crm_stages fs on fs.id = h.from_stage_id
      left join crm_stages ts on ts.id = h.to_stage_id
     ${feedMovesWhere(clientId, range)}
     order by h.changed_at desc, o.id
     limit ${limit})`;
}

// The parts' filters, shared by the rows and the capped count. A target always has its prospect and
// cadence (not-null foreign keys), so the count needs only the joins that can drop a row.
const feedEventsWhere = (clientId: string, range: Range) => sql`where e.client_id = ${clientId}
       and e.type in ('click', 'view') and e.occurred_at >= ${range.from} and e.occurred_at < ${range.to}`;
const feedSupersWhere = (clientId: string, range: Range) =>
  sql`where t.client_id = ${clientId} and t.super_date >= ${range.from} and t.super_date < ${range.to}`;
const feedMovesWhere = (clientId: string, range: Range) =>
  sql`where h.client_id = ${clientId} and h.changed_at >= ${range.from} and h.changed_at < ${range.to}`;

/**
 * The feed's `total` counts at most this many items (20 pages of 50): counting every click and view
 * of a busy range exactly costs as much as reading them all (220 ms at a tenth of the benchmark's
 * size, growing with the range; docs/reports.md "Paging the feed"). A range with more says this number; its later pages are still served.
 */
export const FEED_TOTAL_CAP = 1_000;

/**
 * The feed's items in the range, up to `cap`: the superprospects first (an index-only count), then
 * the stage moves and the clicks and views, each counted only up to what is left of the cap. Each
 * move and event is checked against its opportunity or target one at a time (`offset 0` keeps the
 * planner from hashing the client's whole table of them instead), so the cost is bounded by the cap.
 */
async function feedTotal(db: Db, clientId: string, range: Range, cap: number): Promise<number> {
  const [r] = rowsOf(
    await db.execute(sql`
      with s as (
        select count(*) as n from (select 1 from targets t ${feedSupersWhere(clientId, range)} limit ${cap}) x
      ),
      m as (
        select count(*) as n from (
          select 1 from opportunity_stage_history h
           cross join lateral (
             select 1 from opportunities o
              where o.id = h.opportunity_id and o.client_id = ${clientId} and not o.is_deleted offset 0
           ) o
           ${feedMovesWhere(clientId, range)}
           limit greatest(0, ${cap} - (select n from s))
        ) x
      ),
      e as (
        select count(*) as n from (
          select 1 from engagement_events e
           cross join lateral (
             select 1 from targets t where t.id = e.target_id and t.client_id = ${clientId} offset 0
           ) t
           ${feedEventsWhere(clientId, range)}
           limit greatest(0, ${cap} - (select n from s) - (select n from m))
        ) x
      )
      select s.n + m.n + e.n as n from s, m, e`),
  );
  return num(r?.n);
}

/** The feed's rows of the range, newest first; `limit` null gives every row (the export). */
const feedStatement = (clientId: string, range: Range, limit: number | null, offset: number) => sql`
      select x.* from (${feedParts(clientId, range, limit === null ? null : offset + limit)}) x
       order by x.at desc, x.kind, x.target_id, x.opportunity_id
       limit ${limit} offset ${offset}`;

const toFeedItem = (r: Row): ReportFeedItem => ({
  at: iso(r.at) ?? '',
  kind: r.kind as ReportFeedItem['kind'],
  title: String(r.title),
  detail: String(r.detail),
  target_id: (r.target_id as string | null) ?? null,
  opportunity_id: (r.opportunity_id as string | null) ?? null,
});

export async function reportFeed(
  db: Db,
  clientId: string,
  q: ReportRangeQuery & { page?: number; page_size?: number },
  /** `totalCap`: FEED_TOTAL_CAP (tests). */
  opts: { totalCap?: number } = {},
): Promise<ReportFeed> {
  const range = rangeOf(q);
  const { page, pageSize, offset } = paging(q);
  const [result, total] = await Promise.all([
    db.execute(feedStatement(clientId, range, pageSize, offset)),
    feedTotal(db, clientId, range, opts.totalCap ?? FEED_TOTAL_CAP),
  ]);
  const items = rowsOf(result).map(toFeedItem);
  return { range: epochOf(range), items, total, page, page_size: pageSize };
}

/** Every item of the range's feed, newest first, page by page (the export). */
export function feedExport(db: Db, clientId: string, q: ReportRangeQuery) {
  const range = rangeOf(q);
  return {
    range: epochOf(range),
    pages: mapPages(cursorPages(db, feedStatement(clientId, range, null, 0)), toFeedItem),
  };
}

// ---------------------------------------------------------------- pipeline/priority

/**
 * The accounts marked as a sales priority, with the earliest mark that applies: the account itself,
 * or a marked target whose prospect belongs to the account (as the attribution model ties them, read
 * from the marked prospects' side). A CTE `marked (company_id, marked_at)`.
 */
function markedCte(clientId: string, withTargets: boolean): SQL {
  // Grouped, so the planner joins it by hash: a plain select is inlined and probed once per ranked
  // opportunity (a nested loop over the marks, 22 ms for 50,000 opportunities and no mark).
  if (!withTargets)
    return sql`marked as (
      select sp.company_id, min(sp.created_at) as marked_at
        from sales_priorities sp where sp.client_id = ${clientId} and sp.company_id is not null
       group by sp.company_id
    )`;
  return sql`${prospectTies(
    clientId,
    sql`select t.prospect_id as id from sales_priorities sp
          join targets t on t.id = sp.target_id and t.client_id = ${clientId}
         where sp.client_id = ${clientId}`,
    'marked_ties',
  )},
  marked as (
    select company_id, min(marked_at) as marked_at from (
      select sp.company_id, sp.created_at as marked_at
        from sales_priorities sp where sp.client_id = ${clientId} and sp.company_id is not null
      union all
      select mt.company_id, sp.created_at
        from sales_priorities sp
        join targets t on t.id = sp.target_id and t.client_id = ${clientId}
        join marked_ties mt on mt.prospect_id = t.prospect_id
       where sp.client_id = ${clientId}
    ) m group by company_id
  )`;
}

/**
 * The range pipeline/priority ranks by (issue 43, the product owner's decision): whole days in the
 * client's time zone (its billing account's, UTC without one), today so far and the `days - 1` days
 * before, so the range starts at a local midnight. In UTC that is a rollup day's start and no event of
 * a cut first day is read raw; elsewhere the cut is the zone's offset, the same every call. Also
 * whether any target is marked as a sales priority (one round trip).
 */
export async function priorityRange(
  db: Db,
  clientId: string,
  days: number,
  now = new Date(),
): Promise<{ range: Range; timeZone: string; marks: boolean }> {
  const [r] = rowsOf(
    await db.execute(sql`
      with zone as (
        select coalesce((select time_zone from billing_accounts where client_id = ${clientId}), 'UTC') as tz
      )
      select zone.tz,
             (date_trunc('day', ${now}::timestamptz at time zone zone.tz) - make_interval(days => ${days - 1}))
               at time zone zone.tz as from_at,
             exists (select 1 from sales_priorities where client_id = ${clientId} and target_id is not null) as t
        from zone`),
  );
  if (!r) throw new Error('priorityRange: the look-up returned no row');
  return {
    range: { from: new Date(r.from_at as string | Date), to: now },
    timeZone: String(r.tz),
    marks: Boolean(r.t),
  };
}

/**
 * Open opportunities ranked by their account's engagement in whole days (`priorityRange`): score =
 * impressions + 5 × clicks + 5 × landing page views; ties by the latest engagement, then amount.
 * Opportunities of accounts marked as a sales priority come first.
 */
async function priorityStatement(
  db: Db,
  clientId: string,
  q: { days: number; sort?: PrioritySort | undefined; order?: SortOrder | undefined },
  limit: number | null,
  offset: number,
): Promise<{ statement: SQL; range: Range; timeZone: string }> {
  const { range, timeZone, marks } = await priorityRange(db, clientId, q.days);
  await attributionWindow(db, clientId);
  await ensureAccountMonths(db, clientId, range, { counts: true });
  // An asked column's order numbers the rows (rn) so the page keeps it once its prospects are counted.
  const sorted = q.sort ? orderBySort(PRIORITY_ORDER[q.sort], q.order, sql`o.id`) : null;
  // Accounts engaged in the range from the account rollups (account-rollups.ts), every account's: the
  // ranking's join keeps the open opportunities' (a filter on the 18,000 open accounts made each part
  // probe its rows account by account, and the open accounts cost a scan of the opportunities more:
  // slower than reading the 50,000 kept rows in order at the reports bench's size). Engaged prospects
  // are counted for the page's rows only.
  // The ranking reads only what it orders by (`opportunities_client_open_idx`, migration 0081: the
  // open opportunities' account, amount and id, index-only), and the page's rows are read whole after
  // it; the total is that index's count, not a window over every ranked row (issue 43: the table's
  // scan, the window and the marks' nested loop were half of the statement at the reports bench's size).
  const statement = sql`
    with ${accountEngagementIn(clientId, range)},
    ${markedCte(clientId, marks)},
    ranked_ids as (
      select o.id, o.company_id, o.amount_cents,
             coalesce(eng.impressions, 0) as impressions, coalesce(eng.clicks, 0) as clicks,
             coalesce(eng.views, 0) as views, eng.last_at,
             coalesce(eng.impressions, 0) + 5 * coalesce(eng.clicks, 0) + 5 * coalesce(eng.views, 0) as score,
             marked.marked_at${sorted ? sql`, row_number() over (order by ${sorted}) as rn` : sql``}
        from opportunities o
        ${q.sort === 'stage' ? sql`left join crm_stages s on s.id = o.stage_id` : sql``}
        left join account_engagement_in eng on eng.company_id = o.company_id
        left join marked on marked.company_id = o.company_id
       where o.client_id = ${clientId} and not o.is_deleted and ${openOpportunity}
       order by ${sorted ? sql`rn` : sql`marked.marked_at is null, score desc, eng.last_at desc nulls last, o.amount_cents desc, o.id`}
       limit ${limit} offset ${offset}
    ),
    ranked as (
      select r.*, o.name, o.account_name, coalesce(s.label, o.stage) as stage, o.currency,
             o.close_date::text as close_date,
             (select count(*) from opportunities o
               where o.client_id = ${clientId} and not o.is_deleted and ${openOpportunity}) as total
        from ranked_ids r
        join opportunities o on o.id = r.id
        left join crm_stages s on s.id = o.stage_id
    ),
    -- Once per account of the page: the top opportunities are often several of one large account.
    page_prospects as (
      select a.company_id, ${engagedProspects(clientId, range, sql`a.company_id`)} as n
        from (select distinct company_id from ranked where score > 0) a
    )
    select r.*, case when r.score > 0 then pp.n else 0 end as prospects
      from ranked r
      left join page_prospects pp on pp.company_id = r.company_id
     order by ${sorted ? sql`r.rn` : sql`r.marked_at is null, r.score desc, r.last_at desc nulls last, r.amount_cents desc, r.id`}`;
  return { statement, range, timeZone };
}

const priorityScore = sql`coalesce(eng.impressions, 0) + 5 * coalesce(eng.clicks, 0) + 5 * coalesce(eng.views, 0)`;
/** The column sorts of pipeline/priority (aliases o, s, eng, marked); a stage in its pipeline's order. */
const PRIORITY_ORDER: Record<PrioritySort, SortKeys> = {
  priority: { keys: [sql`(marked.marked_at is not null)::int`, priorityScore], order: 'desc' },
  name: { keys: [sql`lower(o.name)`, sql`lower(o.account_name)`], order: 'asc' },
  stage: { keys: [sql`s.sort_order`, sql`lower(coalesce(s.label, o.stage))`], order: 'asc' },
  amount: { keys: [sql`o.amount_cents`], order: 'desc' },
  score: { keys: [priorityScore], order: 'desc' },
  impressions: { keys: [sql`coalesce(eng.impressions, 0)`], order: 'desc' },
  clicks: { keys: [sql`coalesce(eng.clicks, 0)`], order: 'desc' },
  views: { keys: [sql`coalesce(eng.views, 0)`], order: 'desc' },
  last_engaged: { keys: [sql`eng.last_at`], order: 'desc' },
};

function toPriorityRow(r: Row): PriorityRow {
  return {
    opportunity_id: String(r.id),
    name: String(r.name),
    account_name: String(r.account_name),
    company_id: (r.company_id as string | null) ?? null,
    stage: String(r.stage),
    amount_cents: num(r.amount_cents),
    currency: String(r.currency),
    close_date: (r.close_date as string | null) ?? null,
    impressions: num(r.impressions),
    clicks: num(r.clicks),
    views: num(r.views),
    engaged_prospects: num(r.prospects),
    last_engaged_at: iso(r.last_at),
    score: num(r.score),
    is_priority: r.marked_at !== null && r.marked_at !== undefined,
    priority_marked_at: iso(r.marked_at),
  };
}

export async function priority(
  db: Db,
  clientId: string,
  q: {
    days: number;
    page?: number;
    page_size?: number;
    sort?: PrioritySort | undefined;
    order?: SortOrder | undefined;
  },
): Promise<Priority> {
  const { page, pageSize, offset } = paging(q);
  const { statement, range, timeZone } = await priorityStatement(db, clientId, q, pageSize, offset);
  const rows = rowsOf(await readAccountEngagement(db, statement));
  return {
    days: q.days,
    from: range.from.toISOString(),
    time_zone: timeZone,
    items: rows.map(toPriorityRow),
    total: num(rows[0]?.total),
    page,
    page_size: pageSize,
  };
}

/** Every open opportunity, ranked, page by page (the export). */
export async function priorityExport(db: Db, clientId: string, q: { days: number }) {
  const { statement } = await priorityStatement(db, clientId, q, null, 0);
  return { days: q.days, pages: mapPages(cursorPages(db, statement), toPriorityRow) };
}

// ---------------------------------------------------------------- dashboard/stats

/** How recent a range's end must be for its engaged targets to be counted from their last event. */
const LAST_EVENT_RECENT_MS = 3_600_000;

/**
 * The targets with an event in the range (docs/reports.md "Engaged targets"), exact either way. When
 * the range ends within the last hour: those whose last event (`target_engagement_last`, migration
 * 0035) is at or after `from`, less those whose last event is at or after `to` and that have none in
 * the range, which are only the targets seen since `to`. An older end would make that second set
 * large, so the raw events are counted instead.
 */
export function engagedTargets(clientId: string, range: Range, now = Date.now()): SQL {
  if (range.to.getTime() >= now - LAST_EVENT_RECENT_MS) {
    // One pass over the client's rows; the probe runs only for a target seen since `to` (CASE keeps
    // it from the others: SQL does not promise to evaluate AND in order).
    return sql`(select count(*) - count(*) filter (where case when l.last_at >= ${range.to}
          then not exists (select 1 from engagement_events e
            where e.target_id = l.target_id and e.client_id = ${clientId}
              and e.occurred_at >= ${range.from} and e.occurred_at < ${range.to})
          else false end)
      from target_engagement_last l where l.client_id = ${clientId} and l.last_at >= ${range.from})`;
  }
  return sql`(select count(distinct e.target_id) from engagement_events e
    where e.client_id = ${clientId} and e.occurred_at >= ${range.from} and e.occurred_at < ${range.to})`;
}

/**
 * The dashboard's headline numbers for the range. Each opens to a report: engagement to
 * `/sc/performance/by_date`, engaged accounts to `alignment`, superprospects to
 * `signals/utilization`, open pipeline to `pipeline/priority`, generated and influenced to
 * `pipeline/generated` and `opportunity?filter=influenced`.
 */
export async function dashboardStats(db: Db, clientId: string, q: ReportRangeQuery): Promise<DashboardStats> {
  // Issue 43: a result computed in the last minute for the same client and range (as asked: a range
  // left open at "now" is the same range a minute later) is served with its time.
  const key = `from=${q.from ?? ''}&to=${q.to ?? ''}`;
  const { result, asOf } = await recentResult(db, clientId, 'dashboard/stats', key, () =>
    computeDashboardStats(db, clientId, q),
  );
  return { ...result, as_of: asOf.toISOString() };
}

async function computeDashboardStats(
  db: Db,
  clientId: string,
  q: ReportRangeQuery,
): Promise<Omit<DashboardStats, 'as_of'>> {
  const range = rangeOf(q);
  // The summary gives the main currency too; the dashboard shows no progressed pipeline.
  const [s, counts, contacted, openByCurrency] = await Promise.all([
    summary(db, clientId, q, { progressed: false }),
    // Active targets per active cadence, each counted index-only (targets_active_cadence_idx).
    withoutParallelWorkers(
      db,
      sql`
      select
        (select count(*) from cadences where client_id = ${clientId} and status = 'active' and is_super) as cadences,
        (select coalesce(sum(x.n), 0) from cadences cd
           cross join lateral (select count(*) as n from targets t
             where t.cadence_id = cd.id and t.client_id = ${clientId} and t.is_active) x
          where cd.client_id = ${clientId} and cd.status = 'active' and cd.is_super) as targets,
        ${engagedTargets(clientId, range)} as engaged`,
    ),
    // The contacted superprospects alone: the count of the range's superprospects is the summary's.
    withoutParallelWorkers(
      db,
      sql`with ${contactedCte(clientId, range)} select count(*) as n from contacted`,
    ),
    // The open pipeline per currency, beside the rest rather than after the main currency is known.
    withoutParallelWorkers(
      db,
      sql`
      select o.currency, count(*) as n, coalesce(sum(o.amount_cents), 0) as cents from opportunities o
       where o.client_id = ${clientId} and not o.is_deleted and ${openOpportunity}
       group by o.currency`,
    ),
  ]);
  const open = rowsOf(openByCurrency).find((r) => r.currency === s.currency);
  const c = rowsOf(counts)[0] ?? {};
  return {
    range: epochOf(range),
    currency: s.currency,
    active_cadences: num(c.cadences),
    active_targets: num(c.targets),
    engaged_targets: num(c.engaged),
    engaged_accounts: s.engaged_accounts,
    impressions: s.impressions,
    clicks: s.clicks,
    views: s.views,
    ctr: ratio(s.clicks, s.impressions),
    new_superprospects: s.new_superprospects,
    superprospects_contacted: num(rowsOf(contacted)[0]?.n),
    open_opportunities: num(open?.n),
    open_pipeline_cents: num(open?.cents),
    pipeline_generated_cents: s.pipeline_generated_cents,
    revenue_influenced_cents: s.revenue_influenced_cents,
  };
}
