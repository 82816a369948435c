import { sql } from 'drizzle-orm';
import type {
  ContentDetail,
  ContentPerformance,
  ContentReport,
  LandingPagePerformance,
  ReportRangeQuery,
  ReportSearch,
} from '@rally/shared/schemas/report-insights';
import type { Db } from '../../db/client.ts';
import { iso, num, rowsOf } from './repository.ts';
import type { Range, Row } from './repository.ts';
import { reachedTargets } from './content-reach.ts';
import { engagementCounts, ensureRollups } from './rollups.ts';
import { epochOf, rangeOf } from './service.ts';

/**
 * Content performance (docs/reports.md "Content") and the reports' search. Engagement events carry
 * the content shown on the target's day; a landing page's numbers are those of the ads that lead to
 * it (content.landing_page_id).
 */

const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 10_000) / 10_000 : null);

/**
 * The event counts come from the daily rollups (rollups.ts, after `ensureRollups`); the targets
 * reached are distinct over the whole range, which no sum of days gives: they come from each (ad,
 * target) pair's last event (content-reach.ts).
 */
function contentRows(clientId: string, range: Range, contentId?: string) {
  return sql`
    with ${engagementCounts(clientId, range, contentId)}, ${reachedTargets(clientId, range, contentId)}
    select c.id, coalesce(c.name, '') as name, c.title, c.status, c.is_archived, c.landing_page_id,
           coalesce(x.impressions, 0) as impressions, coalesce(x.clicks, 0) as clicks,
           coalesce(x.views, 0) as views, coalesce(r.targets, 0) as targets
      from content c
      left join (
        select k.content_id,
               sum(k.n) filter (where k.type = 'impression') as impressions,
               sum(k.n) filter (where k.type = 'click') as clicks,
               sum(k.n) filter (where k.type = 'view') as views
          from counts k
         where k.content_id is not null
         group by k.content_id
      ) x on x.content_id = c.id
      left join reached r on r.content_id = c.id
     where c.client_id = ${clientId}
       ${contentId ? sql`and c.id = ${contentId}` : sql`and (not c.is_archived or x.content_id is not null)`}
     order by coalesce(x.impressions, 0) desc, coalesce(x.clicks, 0) desc, lower(coalesce(c.name, c.title)), c.id`;
}

function toContent(r: Row): ContentPerformance {
  return {
    content_id: String(r.id),
    name: String(r.name) || String(r.title),
    title: String(r.title),
    status: String(r.status),
    is_archived: Boolean(r.is_archived),
    landing_page_id: (r.landing_page_id as string | null) ?? null,
    impressions: num(r.impressions),
    clicks: num(r.clicks),
    views: num(r.views),
    targets_reached: num(r.targets),
    ctr: ratio(num(r.clicks), num(r.impressions)),
  };
}

/** Per ad (content item) and per landing page: impressions, clicks, views and rates in the range. */
export async function contentReport(db: Db, clientId: string, q: ReportRangeQuery): Promise<ContentReport> {
  const range = rangeOf(q);
  await ensureRollups(db, clientId, range);
  const [ads, pages] = await Promise.all([
    db.execute(contentRows(clientId, range)),
    db.execute(sql`
      with ${engagementCounts(clientId, range)},
      per_content as (
        select k.content_id, sum(k.n) filter (where k.type = 'click') as clicks,
               sum(k.n) filter (where k.type = 'view') as views
          from counts k
         where k.content_id is not null and k.type in ('click', 'view')
         group by k.content_id
      ),
      viewers as (
        select c.landing_page_id, count(distinct e.target_id) as targets
          from engagement_events e
          join content c on c.id = e.content_id and c.client_id = ${clientId}
         where e.client_id = ${clientId} and e.type = 'view'
           and e.occurred_at >= ${range.from} and e.occurred_at < ${range.to}
         group by c.landing_page_id
      )
      select lp.id, lp.name, coalesce(sum(pc.clicks), 0) as clicks, coalesce(sum(pc.views), 0) as views,
             coalesce(min(v.targets), 0) as targets
        from landing_pages lp
        left join content c on c.landing_page_id = lp.id and c.client_id = ${clientId}
        left join per_content pc on pc.content_id = c.id
        left join viewers v on v.landing_page_id = lp.id
       where lp.client_id = ${clientId}
       group by lp.id, lp.name, lp.is_archived
      having not lp.is_archived or coalesce(sum(pc.clicks), 0) + coalesce(sum(pc.views), 0) > 0
       order by coalesce(sum(pc.views), 0) desc, lower(lp.name), lp.id`),
  ]);
  const landingPages: LandingPagePerformance[] = rowsOf(pages).map((r) => ({
    landing_page_id: String(r.id),
    name: String(r.name),
    clicks: num(r.clicks),
    views: num(r.views),
    targets_reached: num(r.targets),
    view_rate: ratio(num(r.views), num(r.clicks)),
  }));
  return { range: epochOf(range), ads: rowsOf(ads).map(toContent), landing_pages: landingPages };
}

/** One content item: its totals, a row per day of the range, and the targets that engaged with it. */
export async function contentDetail(
  db: Db,
  clientId: string,
  contentId: string,
  q: ReportRangeQuery,
): Promise<ContentDetail | null> {
  const range = rangeOf(q);
  // Another client's id (or none) is refused before a day is rolled up.
  const [known] = rowsOf(
    await db.execute(sql`select 1 from content where id = ${contentId} and client_id = ${clientId}`),
  );
  if (!known) return null;
  await ensureRollups(db, clientId, range);
  const [row] = rowsOf(await db.execute(contentRows(clientId, range, contentId)));
  if (!row) return null;
  const [days, targets] = await Promise.all([
    db.execute(sql`
      with days as (
        select generate_series(date_trunc('day', ${range.from}::timestamptz at time zone 'UTC'),
                               date_trunc('day', (${range.to}::timestamptz - interval '1 second') at time zone 'UTC'),
                               '1 day'::interval) as day
      ),
      ${engagementCounts(clientId, range, contentId)},
      ev as (
        select k.day::timestamp as day,
               sum(k.n) filter (where k.type = 'impression') as impressions,
               sum(k.n) filter (where k.type = 'click') as clicks,
               sum(k.n) filter (where k.type = 'view') as views
          from counts k
         group by 1
      )
      select to_char(d.day, 'YYYY-MM-DD') as date, coalesce(ev.impressions, 0) as impressions,
             coalesce(ev.clicks, 0) as clicks, coalesce(ev.views, 0) as views
        from days d left join ev on ev.day = d.day order by d.day`),
    db.execute(sql`
      select t.id as target_id, p.id as prospect_id, trim(p.first_name || ' ' || p.last_name) as name,
             co.name as company_name, cd.name as cadence_name,
             count(*) filter (where e.type = 'impression') as impressions,
             count(*) filter (where e.type = 'click') as clicks,
             count(*) filter (where e.type = 'view') as views,
             max(e.occurred_at) as last_at
        from engagement_events e
        join targets t on t.id = e.target_id and t.client_id = ${clientId}
        join prospects p on p.id = t.prospect_id
        join cadences cd on cd.id = t.cadence_id
        left join companies co on co.id = p.company_id
       where e.client_id = ${clientId} and e.content_id = ${contentId}
         and e.occurred_at >= ${range.from} and e.occurred_at < ${range.to}
       group by t.id, p.id, co.name, cd.name
       order by count(*) filter (where e.type = 'click') + count(*) filter (where e.type = 'view') desc,
                count(*) desc, max(e.occurred_at) desc, t.id
       limit 200`),
  ]);
  return {
    range: epochOf(range),
    content: toContent(row),
    by_date: rowsOf(days).map((r) => ({
      date: String(r.date),
      impressions: num(r.impressions),
      clicks: num(r.clicks),
      views: num(r.views),
    })),
    targets: rowsOf(targets).map((r) => ({
      target_id: String(r.target_id),
      prospect_id: String(r.prospect_id),
      name: String(r.name),
      company_name: (r.company_name as string | null) ?? null,
      cadence_name: String(r.cadence_name),
      impressions: num(r.impressions),
      clicks: num(r.clicks),
      views: num(r.views),
      last_engaged_at: iso(r.last_at) ?? '',
    })),
  };
}

/** `%`, `_` and `\` match themselves: the search is a substring, never a pattern the user writes. */
export const likePattern = (search: string) => `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Prospects (name, e-mail, title — the trigram-indexed expression), companies, cadences and content
 * of the client whose text contains the search, case-insensitive, `limit` of each.
 */
export async function reportSearch(
  db: Db,
  clientId: string,
  q: { search: string; limit: number },
): Promise<ReportSearch> {
  const like = likePattern(q.search);
  const [people, companies, cadences, content] = await Promise.all([
    db.execute(sql`
      select p.id, trim(p.first_name || ' ' || p.last_name) as name, p.email, p.title, co.name as company_name,
             (select t.id from targets t where t.prospect_id = p.id and t.client_id = ${clientId}
               order by t.impressions + t.clicks desc, t.id limit 1) as target_id
        from prospects p
        left join companies co on co.id = p.company_id
       where p.client_id = ${clientId}
         and (p.first_name || ' ' || p.last_name || ' ' || coalesce(p.email, '') || ' ' || p.title) ilike ${like}
       order by lower(p.first_name), lower(p.last_name), p.id
       limit ${q.limit}`),
    db.execute(sql`
      select id, name, website from companies
       where client_id = ${clientId} and name ilike ${like}
       order by lower(name), id limit ${q.limit}`),
    db.execute(sql`
      select id, name, status from cadences
       where client_id = ${clientId} and name ilike ${like}
       order by lower(name), id limit ${q.limit}`),
    db.execute(sql`
      select id, coalesce(name, '') as name, title, status from content
       where client_id = ${clientId} and not is_archived and (coalesce(name, '') || ' ' || title) ilike ${like}
       order by lower(coalesce(name, title)), id limit ${q.limit}`),
  ]);
  return {
    search: q.search,
    prospects: rowsOf(people).map((r) => ({
      prospect_id: String(r.id),
      name: String(r.name),
      email: (r.email as string | null) ?? null,
      title: String(r.title ?? ''),
      company_name: (r.company_name as string | null) ?? null,
      target_id: (r.target_id as string | null) ?? null,
    })),
    companies: rowsOf(companies).map((r) => ({
      account_id: String(r.id),
      name: String(r.name),
      website: (r.website as string | null) || null,
    })),
    cadences: rowsOf(cadences).map((r) => ({
      cadence_id: num(r.id),
      name: String(r.name),
      status: String(r.status),
    })),
    content: rowsOf(content).map((r) => ({
      content_id: String(r.id),
      name: String(r.name) || String(r.title),
      title: String(r.title),
      status: String(r.status),
    })),
  };
}
