import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type {
  ActivityItem,
  Alignment,
  AlignmentAccount,
  AlignmentSegment,
  AlignmentSort,
  BuyingGroup,
  BuyingGroupMember,
  ReportRangeQuery,
  TargetActivities,
  TargetReport,
  TargetStats,
} from '@rally/shared/schemas/report-insights';
import { NO_ROLE } from '@rally/shared/schemas/report-insights';
import type { SortOrder } from '@rally/shared/schemas/reports';
import type { Db } from '../../db/client.ts';
import { cursorPages, mapPages } from '../../db/cursor.ts';
import { accountEngagementIn, ensureAccountMonths, readAccountEngagement } from './account-rollups.ts';
import { accountProspects, iso, num, oneAccountProspects, openOpportunity, rowsOf } from './repository.ts';
import type { Range, Row } from './repository.ts';
import { attributionWindow, epochOf, rangeOf } from './service.ts';
import { orderBySort } from './report-sort.ts';
import type { SortKeys } from './report-sort.ts';

/**
 * Account reports (docs/reports.md "Accounts"): alignment of sales outreach with Rally's ads, one
 * target's numbers and timeline, and one account's buying group. Accounts are Rally companies, and
 * prospects belong to them as the attribution model says (repository.ts `accountProspects`).
 */

/**
 * The CRM activity counts that are sales outreach: the types each CRM connection's settings name
 * as outreach (crm_integration_settings.outreach_activity_types). A CTE `outreach (contact_id,
 * activity_type, count, last_activity_at)`. `alignment` reads the same counts per account from
 * `account_outreach` (migration 0073), which must stay equal to this.
 */
export function outreachCte(clientId: string, lastIn?: { from: Date; to?: Date }): SQL {
  // `lastIn` keeps only the counts last done from `from` (and before `to`), before the per-row type
  // test and the join to the live contacts (utilization).
  return sql`outreach as (
    select ac.contact_id, ac.activity_type, ac.count, ac.last_activity_at
      from crm_activity_counts ac
      join crm_integration_settings s on s.integration_id = ac.integration_id and s.client_id = ${clientId}
      join crm_contacts live on live.id = ac.contact_id and not live.is_deleted
     where ac.client_id = ${clientId} and ac.contact_id is not null
       ${lastIn ? sql`and ac.last_activity_at >= ${lastIn.from}` : sql``}
       ${lastIn?.to ? sql`and ac.last_activity_at < ${lastIn.to}` : sql``}
       and ac.activity_type in (select jsonb_array_elements_text(s.outreach_activity_types))
  )`;
}

/** The outreach activity types of the client's CRM connections, for the reply. */
export async function outreachTypes(db: Db, clientId: string): Promise<string[]> {
  const result = await db.execute(sql`
    select distinct jsonb_array_elements_text(outreach_activity_types) as t
      from crm_integration_settings where client_id = ${clientId} order by 1`);
  return rowsOf(result).map((r) => String(r.t));
}

const SEGMENT_WHERE: Record<AlignmentSegment, SQL> = {
  all: sql`true`,
  both: sql`segment = 'both'`,
  outreach_only: sql`segment = 'outreach_only'`,
  ads_only: sql`segment = 'ads_only'`,
  engaged: sql`segment in ('both', 'ads_only')`,
};

/**
 * Accounts with outreach (an outreach activity last done in the range) or ad engagement in the range
 * (account-rollups.ts; `ensureAccountMonths` first). Engaged prospects are counted for the rows
 * shown only (`engagedProspects`). The outreach is read per account (`account_outreach`, migration
 * 0073: each outreach count once per account its contact belongs to, by the CRM account or the
 * prospect's stored ties), so no contact is tied to its accounts here.
 */
function alignmentRows(clientId: string, range: Range): SQL {
  return sql`with ${accountEngagementIn(clientId, range)},
    o as (
      select ao.company_id, sum(ao.count)::int as activities, count(distinct ao.contact_id)::int as contacts,
             max(ao.last_activity_at) as last_at
        from account_outreach ao
       where ao.client_id = ${clientId}
         and ao.last_activity_at >= ${range.from} and ao.last_activity_at < ${range.to}
       group by ao.company_id
    ),
    ads as (select * from account_engagement_in)
    select c.id as account_id, c.name, c.website,
           case when o.company_id is not null and ads.company_id is not null then 'both'
                when o.company_id is not null then 'outreach_only' else 'ads_only' end as segment,
           coalesce(o.activities, 0) as outreach_activities, coalesce(o.contacts, 0) as outreach_contacts,
           o.last_at as last_outreach_at,
           coalesce(ads.impressions, 0) as impressions, coalesce(ads.clicks, 0) as clicks,
           coalesce(ads.views, 0) as views, ads.last_at as last_engaged_at
      from o
      full join ads on ads.company_id = o.company_id
      join companies c on c.id = coalesce(o.company_id, ads.company_id) and c.client_id = ${clientId}`;
}

/**
 * How many prospects of an account (`x.account_id`) engaged in the range: for the rows of a page,
 * each account's prospects (stored ties) and their targets' last events (`target_engagement_last`,
 * docs/reports.md "Engaged targets"). A target had an event in [from, to) when its last event is in
 * it, or is later and an event of the range is found by its index: exact for any range, and one probe
 * per target when the range ends now.
 */
export function engagedProspects(clientId: string, range: Range, account: SQL): SQL {
  return sql`(select count(*) from ${oneAccountProspects(clientId, account)} ap
     where exists (
       select 1 from targets t
         join target_engagement_last l on l.client_id = ${clientId} and l.target_id = t.id
        where t.prospect_id = ap.prospect_id and t.client_id = ${clientId} and l.last_at >= ${range.from}
          and case when l.last_at < ${range.to} then true
                   else exists (select 1 from engagement_events e
                     where e.target_id = t.id and e.client_id = ${clientId}
                       and e.occurred_at >= ${range.from} and e.occurred_at < ${range.to}) end))`;
}

function toAlignment(r: Row): AlignmentAccount {
  return {
    account_id: String(r.account_id),
    name: String(r.name),
    website: (r.website as string | null) || null,
    segment: r.segment as AlignmentAccount['segment'],
    outreach_activities: num(r.outreach_activities),
    outreach_contacts: num(r.outreach_contacts),
    last_outreach_at: iso(r.last_outreach_at),
    impressions: num(r.impressions),
    clicks: num(r.clicks),
    views: num(r.views),
    engaged_prospects: num(r.engaged_prospects),
    last_engaged_at: iso(r.last_engaged_at),
  };
}

const segmentRank = (t: string) =>
  sql.raw(`case ${t}.segment when 'both' then 0 when 'ads_only' then 1 else 2 end`);
/** The alignment's column sorts (alias given); the account id breaks ties. */
const ALIGNMENT_ORDER: Record<AlignmentSort, (t: string) => SortKeys> = {
  name: (t) => ({ keys: [sql.raw(`lower(${t}.name)`)], order: 'asc' }),
  segment: (t) => ({ keys: [segmentRank(t), sql.raw(`lower(${t}.name)`)], order: 'asc' }),
  outreach: (t) => ({ keys: [sql.raw(`${t}.outreach_activities`)], order: 'desc' }),
  last_outreach: (t) => ({ keys: [sql.raw(`${t}.last_outreach_at`)], order: 'desc' }),
  impressions: (t) => ({ keys: [sql.raw(`${t}.impressions`)], order: 'desc' }),
  clicks: (t) => ({ keys: [sql.raw(`${t}.clicks`)], order: 'desc' }),
  views: (t) => ({ keys: [sql.raw(`${t}.views`)], order: 'desc' }),
};

/** The order of the alignment's rows (alias given): the asked column's, else the report's own. */
const alignmentOrder = (t: string, sort?: { sort?: AlignmentSort; order?: SortOrder }) =>
  sort?.sort
    ? orderBySort(ALIGNMENT_ORDER[sort.sort](t), sort.order, sql.raw(`${t}.account_id`))
    : sql.raw(`case ${t}.segment when 'both' then 0 when 'ads_only' then 1 else 2 end,
           ${t}.clicks + ${t}.views desc, ${t}.impressions desc, ${t}.outreach_activities desc, ${t}.name, ${t}.account_id`);

/**
 * The alignment's rows of a segment in order, with every segment's count (window counts over all
 * rows) on each; `limit` null gives every row (the export). Engaged prospects are counted for the
 * rows given only.
 */
function alignmentStatement(
  clientId: string,
  range: Range,
  segment: AlignmentSegment,
  limit: number | null,
  offset: number,
  sort?: { sort?: AlignmentSort; order?: SortOrder },
): SQL {
  return sql`
      select y.*, case when y.impressions + y.clicks + y.views > 0
                       then ${engagedProspects(clientId, range, sql`y.account_id`)} else 0 end as engaged_prospects
        from (
          select z.* from (
            select x.*, count(*) filter (where x.segment = 'both') over () as n_both,
                   count(*) filter (where x.segment = 'outreach_only') over () as n_outreach_only,
                   count(*) filter (where x.segment = 'ads_only') over () as n_ads_only,
                   count(*) filter (where ${SEGMENT_WHERE[segment]}) over () as total
              from (${alignmentRows(clientId, range)}) x
          ) z
           where ${SEGMENT_WHERE[segment]}
           order by ${alignmentOrder('z', sort)}
           limit ${limit} offset ${offset}) y
       order by ${alignmentOrder('y', sort)}`;
}

export async function alignment(
  db: Db,
  clientId: string,
  q: ReportRangeQuery & {
    segment: AlignmentSegment;
    page?: number;
    page_size?: number;
    sort?: AlignmentSort | undefined;
    order?: SortOrder | undefined;
  },
): Promise<Alignment> {
  const range = rangeOf(q);
  const pageSize = q.page_size ?? 50;
  const page = q.page ?? 1;
  await attributionWindow(db, clientId);
  await ensureAccountMonths(db, clientId, range, { counts: true });
  // One statement gives the page and every segment's count; only a page past the end, which has no
  // row to carry them, counts again.
  const [pageResult, types] = await Promise.all([
    readAccountEngagement(
      db,
      alignmentStatement(clientId, range, q.segment, pageSize, (page - 1) * pageSize, q),
    ),
    outreachTypes(db, clientId),
  ]);
  const counts = { both: 0, outreach_only: 0, ads_only: 0, total: 0 };
  const [first] = rowsOf(pageResult);
  if (first) {
    counts.both = num(first.n_both);
    counts.outreach_only = num(first.n_outreach_only);
    counts.ads_only = num(first.n_ads_only);
  } else {
    const result = await readAccountEngagement(
      db,
      sql`select segment, count(*) as n from (${alignmentRows(clientId, range)}) x group by segment`,
    );
    for (const r of rowsOf(result)) counts[r.segment as 'both' | 'outreach_only' | 'ads_only'] = num(r.n);
  }
  counts.total = counts.both + counts.outreach_only + counts.ads_only;
  const rows = rowsOf(pageResult);
  return {
    range: epochOf(range),
    outreach_activity_types: types,
    counts,
    items: rows.map(toAlignment),
    total: num(rows[0]?.total),
    page,
    page_size: pageSize,
  };
}

/** Every account of the segment, in the report's order, page by page (the export). */
export async function alignmentExport(
  db: Db,
  clientId: string,
  q: ReportRangeQuery & { segment: AlignmentSegment },
) {
  const range = rangeOf(q);
  await attributionWindow(db, clientId);
  await ensureAccountMonths(db, clientId, range, { counts: true });
  const statement = alignmentStatement(clientId, range, q.segment, null, 0);
  return { range: epochOf(range), pages: mapPages(cursorPages(db, statement), toAlignment) };
}

// ---------------------------------------------------------------- one target

/** One target of the client with its prospect, cadence, company and rep; null when not the client's. */
export async function targetReport(db: Db, clientId: string, targetId: string): Promise<TargetReport | null> {
  const result = await db.execute(sql`
    select t.id as target_id, p.id as prospect_id, trim(p.first_name || ' ' || p.last_name) as name,
           p.email, p.title, co.id as company_id, co.name as company_name, cd.id as cadence_id,
           cd.name as cadence_name, nullif(trim(coalesce(r.first_name, '') || ' ' || coalesce(r.last_name, '')), '') as sales_rep,
           t.day_number, t.is_active, t.impressions, t.clicks, t.views, t.super_date
      from targets t
      join prospects p on p.id = t.prospect_id
      join cadences cd on cd.id = t.cadence_id
      left join companies co on co.id = p.company_id
      left join sales_reps r on r.id = t.sales_rep_id
     where t.id = ${targetId} and t.client_id = ${clientId}`);
  const r = rowsOf(result)[0];
  if (!r) return null;
  return {
    target_id: String(r.target_id),
    prospect_id: String(r.prospect_id),
    name: String(r.name),
    email: (r.email as string | null) ?? null,
    title: String(r.title ?? ''),
    company_id: (r.company_id as string | null) ?? null,
    company_name: (r.company_name as string | null) ?? null,
    cadence_id: num(r.cadence_id),
    cadence_name: String(r.cadence_name),
    sales_rep: (r.sales_rep as string | null) ?? null,
    day_number: num(r.day_number),
    is_active: Boolean(r.is_active),
    impressions: num(r.impressions),
    clicks: num(r.clicks),
    views: num(r.views),
    super_date: iso(r.super_date),
  };
}

const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 10_000) / 10_000 : null);

export async function targetStats(
  db: Db,
  clientId: string,
  target: TargetReport,
  q: ReportRangeQuery,
): Promise<TargetStats> {
  const range = rangeOf(q);
  const [totals, byContent, crm] = await Promise.all([
    db.execute(sql`
      select count(*) filter (where e.type = 'impression') as impressions,
             count(*) filter (where e.type = 'click') as clicks,
             count(*) filter (where e.type = 'view') as views,
             count(distinct date_trunc('day', e.occurred_at at time zone 'UTC')) as days,
             min(e.occurred_at) as first_at, max(e.occurred_at) as last_at
        from engagement_events e
       where e.client_id = ${clientId} and e.target_id = ${target.target_id}
         and e.occurred_at >= ${range.from} and e.occurred_at < ${range.to}`),
    db.execute(sql`
      select e.content_id, coalesce(nullif(c.name, ''), nullif(c.title, ''), 'Ad') as name,
             count(*) filter (where e.type = 'impression') as impressions,
             count(*) filter (where e.type = 'click') as clicks,
             count(*) filter (where e.type = 'view') as views
        from engagement_events e
        left join content c on c.id = e.content_id and c.client_id = ${clientId}
       where e.client_id = ${clientId} and e.target_id = ${target.target_id}
         and e.occurred_at >= ${range.from} and e.occurred_at < ${range.to}
       group by e.content_id, c.name, c.title
       order by count(*) desc, 2`),
    db.execute(sql`
      with ${accountProspects(clientId)}, ${outreachCte(clientId)}
      select
        (select coalesce(sum(ou.count), 0) from outreach ou join crm_contacts cc on cc.id = ou.contact_id
          where cc.prospect_id = ${target.prospect_id}) as activities,
        (select max(ou.last_activity_at) from outreach ou join crm_contacts cc on cc.id = ou.contact_id
          where cc.prospect_id = ${target.prospect_id}) as last_at,
        (select count(*) from opportunities o
          where o.client_id = ${clientId} and not o.is_deleted and ${openOpportunity}
            and o.company_id in (select company_id from account_prospects where prospect_id = ${target.prospect_id})) as open_n,
        (select coalesce(sum(o.amount_cents), 0) from opportunities o
          where o.client_id = ${clientId} and not o.is_deleted and ${openOpportunity}
            and o.company_id in (select company_id from account_prospects where prospect_id = ${target.prospect_id})) as open_cents`),
  ]);
  const t = rowsOf(totals)[0] ?? {};
  const c = rowsOf(crm)[0] ?? {};
  return {
    range: epochOf(range),
    target_id: target.target_id,
    impressions: num(t.impressions),
    clicks: num(t.clicks),
    views: num(t.views),
    ctr: ratio(num(t.clicks), num(t.impressions)),
    days_engaged: num(t.days),
    first_engaged_at: iso(t.first_at),
    last_engaged_at: iso(t.last_at),
    super_date: target.super_date,
    outreach_activities: num(c.activities),
    last_outreach_at: iso(c.last_at),
    open_opportunities: num(c.open_n),
    open_pipeline_cents: num(c.open_cents),
    by_content: rowsOf(byContent).map((r) => ({
      content_id: (r.content_id as string | null) ?? null,
      name: String(r.name),
      impressions: num(r.impressions),
      clicks: num(r.clicks),
      views: num(r.views),
    })),
  };
}

/**
 * The timeline of one target, newest first: its impressions, clicks and views; the CRM activities of
 * its prospect's contact (one entry per type at its last time, with the CRM's total); the stage
 * moves of the opportunities of the prospect's accounts.
 */
function activityRows(clientId: string, target: TargetReport, range: Range): SQL {
  return sql`with ${accountProspects(clientId)}
    select e.occurred_at as at, e.type as kind,
           coalesce(nullif(c.name, ''), nullif(c.title, ''), case when e.type = 'view' then 'Landing page' else 'Ad' end) as detail,
           e.content_id, null::uuid as opportunity_id, null::int as count
      from engagement_events e
      left join content c on c.id = e.content_id and c.client_id = ${clientId}
     where e.client_id = ${clientId} and e.target_id = ${target.target_id}
       and e.occurred_at >= ${range.from} and e.occurred_at < ${range.to}
    union all
    select ac.last_activity_at, 'crm_activity', ac.activity_type, null, null, ac.count
      from crm_activity_counts ac
      join crm_contacts cc on cc.id = ac.contact_id and not cc.is_deleted
     where ac.client_id = ${clientId} and cc.prospect_id = ${target.prospect_id}
       and ac.last_activity_at >= ${range.from} and ac.last_activity_at < ${range.to}
    union all
    select h.changed_at, 'stage_move',
           o.name || ': ' || coalesce(coalesce(fs.label, h.from_stage) || ' → ', 'created in ') || coalesce(ts.label, h.to_stage),
           null, o.id, null
      from opportunity_stage_history h
      join opportunities o on o.id = h.opportunity_id and not o.is_deleted
      left join crm_stages fs on fs.id = h.from_stage_id
      left join crm_stages ts on ts.id = h.to_stage_id
     where h.client_id = ${clientId} and o.client_id = ${clientId}
       and o.company_id in (select company_id from account_prospects where prospect_id = ${target.prospect_id})
       and h.changed_at >= ${range.from} and h.changed_at < ${range.to}`;
}

export async function targetActivities(
  db: Db,
  clientId: string,
  target: TargetReport,
  q: ReportRangeQuery & { page?: number; page_size?: number },
  opts: { limit?: number } = {},
): Promise<TargetActivities> {
  const range = rangeOf(q);
  const pageSize = opts.limit ?? q.page_size ?? 50;
  const page = opts.limit ? 1 : (q.page ?? 1);
  const result = await db.execute(sql`
    select x.*, count(*) over () as total from (${activityRows(clientId, target, range)}) x
     order by x.at desc, x.kind
     limit ${pageSize} offset ${(page - 1) * pageSize}`);
  const rows = rowsOf(result);
  const items: ActivityItem[] = rows.map((r) => ({
    at: iso(r.at) ?? '',
    kind: r.kind as ActivityItem['kind'],
    detail: String(r.detail),
    content_id: (r.content_id as string | null) ?? null,
    opportunity_id: (r.opportunity_id as string | null) ?? null,
    count: r.count === null || r.count === undefined ? null : num(r.count),
  }));
  return { range: epochOf(range), items, total: num(rows[0]?.total), page, page_size: pageSize };
}

// ---------------------------------------------------------------- buying group

/**
 * The people of one account — its prospects (as the attribution model ties them) and its CRM
 * contacts without a prospect — each with the role of its opportunity contact role (the primary one
 * first, else the newest opportunity's), engagement in the range and outreach totals. Null when the
 * account is not the client's.
 */
export async function buyingGroup(
  db: Db,
  clientId: string,
  accountId: string,
  q: ReportRangeQuery,
): Promise<BuyingGroup | null> {
  const range = rangeOf(q);
  const [account] = rowsOf(
    await db.execute(sql`
      select id, name, website from companies where id = ${accountId} and client_id = ${clientId}`),
  );
  if (!account) return null;
  const result = await db.execute(sql`
    with ${accountProspects(clientId)}, ${outreachCte(clientId)},
    m as (
      select p.id as prospect_id,
             (select cc.id from crm_contacts cc
               where cc.prospect_id = p.id and cc.client_id = ${clientId} and not cc.is_deleted
               order by cc.created_at, cc.id limit 1) as contact_id,
             trim(p.first_name || ' ' || p.last_name) as name, p.email, p.title
        from account_prospects ap
        join prospects p on p.id = ap.prospect_id
       where ap.company_id = ${accountId}
      union all
      select null::uuid, cc.id, trim(cc.first_name || ' ' || cc.last_name), cc.email, cc.title
        from crm_contacts cc
        join crm_accounts a on a.id = cc.account_id and not a.is_deleted
       where cc.client_id = ${clientId} and a.company_id = ${accountId} and cc.prospect_id is null
         and not cc.is_deleted
    )
    select m.*, role.role, coalesce(role.is_primary, false) as is_primary,
           eng.impressions, eng.clicks, eng.views, eng.last_at, sup.super_date, sup.target_id,
           coalesce((select sum(ou.count) from outreach ou where ou.contact_id = m.contact_id), 0) as outreach
      from m
      left join lateral (
        select nullif(oc.role, '') as role, oc.is_primary
          from opportunity_contacts oc
          join opportunities o on o.id = oc.opportunity_id and not o.is_deleted
         where oc.contact_id = m.contact_id and oc.client_id = ${clientId} and o.company_id = ${accountId}
         order by oc.is_primary desc, (oc.role = '') , o.crm_created_at desc nulls last, o.id
         limit 1
      ) role on true
      left join lateral (
        select count(*) filter (where e.type = 'impression') as impressions,
               count(*) filter (where e.type = 'click') as clicks,
               count(*) filter (where e.type = 'view') as views,
               max(e.occurred_at) as last_at
          from targets t
          join engagement_events e on e.target_id = t.id and e.client_id = ${clientId}
         where t.prospect_id = m.prospect_id and t.client_id = ${clientId}
           and e.occurred_at >= ${range.from} and e.occurred_at < ${range.to}
      ) eng on true
      left join lateral (
        select min(t.super_date) as super_date,
               (array_agg(t.id order by t.impressions + t.clicks desc, t.id))[1] as target_id
          from targets t where t.prospect_id = m.prospect_id and t.client_id = ${clientId}
      ) sup on true
     order by m.name, m.prospect_id, m.contact_id`);
  const members: BuyingGroupMember[] = rowsOf(result).map((r) => ({
    prospect_id: (r.prospect_id as string | null) ?? null,
    contact_id: (r.contact_id as string | null) ?? null,
    name: String(r.name ?? ''),
    email: (r.email as string | null) ?? null,
    title: String(r.title ?? ''),
    role: (r.role as string | null) ?? NO_ROLE,
    is_primary: Boolean(r.is_primary),
    impressions: num(r.impressions),
    clicks: num(r.clicks),
    views: num(r.views),
    last_engaged_at: iso(r.last_at),
    super_date: iso(r.super_date),
    outreach_activities: num(r.outreach),
    target_id: (r.target_id as string | null) ?? null,
  }));
  const byRole = new Map<string, BuyingGroupMember[]>();
  for (const m of members) byRole.set(m.role, [...(byRole.get(m.role) ?? []), m]);
  const roles = [...byRole.entries()]
    .sort(([a], [b]) => (a === NO_ROLE ? 1 : b === NO_ROLE ? -1 : a.localeCompare(b)))
    .map(([role, list]) => ({
      role,
      members: list,
      impressions: list.reduce((n, m) => n + m.impressions, 0),
      clicks: list.reduce((n, m) => n + m.clicks, 0),
      views: list.reduce((n, m) => n + m.views, 0),
    }));
  const [open] = rowsOf(
    await db.execute(sql`
      select count(*) as n from opportunities o
       where o.client_id = ${clientId} and o.company_id = ${accountId} and not o.is_deleted and ${openOpportunity}`),
  );
  return {
    range: epochOf(range),
    account: {
      id: String(account.id),
      name: String(account.name),
      website: (account.website as string | null) || null,
    },
    roles,
    members: members.length,
    engaged_members: members.filter((m) => m.impressions + m.clicks + m.views > 0).length,
    open_opportunities: num(open?.n),
  };
}
