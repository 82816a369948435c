import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { accountProspects, rowsOf } from './report-sql.ts';
import type { Range } from './report-sql.ts';
import { ensureRollups, wholeDaysOf } from './rollups.ts';
import {
  DAY_MS,
  dateArray,
  gateRow,
  monthGate,
  dateOf,
  dayOfMonth,
  monthCountParts,
  monthOf,
  monthSpans,
  nextMonth,
} from './account-months.ts';
import type { Gate, MonthSpan } from './account-months.ts';
import { ensureRangeSums, forgetRangeSums, rangeSums } from './account-ranges.ts';
import { ensureStartHours, forgetHours, hoursValid, startHoursDay, startHoursPart } from './account-hours.ts';
import { ensureRangeSpan, rangeSpan } from './account-spans.ts';

/**
 * Engagement per account over a range (docs/reports.md "Account rollups", migration 0030).
 *
 * Why: the account reports (summary's engaged accounts, alignment, priority) tied each event of the
 * range to its accounts through the client's four ties: 2.5 million events of 90 days and a million
 * targets at the reports bench's size, seconds per call. Per account and month they are a few tens of
 * thousands of rows, each with cumulative counts by day, so any run of whole days is two subscripts.
 *
 * Why it stays exact (as the daily rollups, rollups.ts):
 * - a month counts its days [month, through), whole closed days only, each added while its daily
 *   rollup marker existed and was valid, under the day's exclusive lock (writers of a day hold it
 *   shared, so none was in flight);
 * - a write of a counted day's events deletes the day's marker (migration 0024), and the marker's
 *   deletion deletes the month (trigger, migration 0030); a read also takes a month only while every
 *   marker of its counted days is still valid (a detached or dropped partition);
 * - a change of the ties (a prospect's company or e-mail, a CRM contact or account, a website; the
 *   attribution markers, attribution.ts) recounts the accounts it names, or every month when there are
 *   many (`forgetAccounts`);
 * - the rest of a range (the edges that cut a day, today, a month that could not be counted) is
 *   counted from the raw events in the same statement, each tied through the prospect's indexes.
 */

const HOUR_MS = 3_600_000;
/** Days added in one count past which the table's statistics are taken again. */
const ANALYZE_AFTER_DAYS = 20;
/** Accounts named by changed ties past which every month is counted again instead. */
const RECOUNT_ACCOUNTS_MAX = 500;

/**
 * Counts the months of the range's whole days up to yesterday (or the month's end), adding only the
 * days not counted yet. A day whose lock is busy or whose daily marker is missing stops its month
 * there (those days are read raw). Returns the days added.
 */
export async function ensureAccountMonths(
  db: Db,
  clientId: string,
  range: Range,
  // For `accountEngagementIn`'s counts: the start day's rows by hour (account-hours.ts) and the range's
  // whole days summed per account (account-ranges.ts) too.
  opts: { counts?: boolean } = {},
): Promise<number> {
  const days = await countMonths(db, clientId, range);
  await ensureToday(db, clientId, range);
  if (opts.counts) {
    await ensureStartHours(db, clientId, range);
    await ensureRangeSums(db, clientId, range);
    await ensureRangeSpan(db, clientId, range);
  }
  return days;
}

/** How stale today's counts may be before a read counts them again. */
const TODAY_EVERY_MS = 120_000;

/**
 * Counts today's events per account up to a minute ago (account_engagement_today, migration 0031)
 * when the range reaches today and the last count is older than two minutes. Under the day's
 * exclusive lock, tried: writers of today's events hold it shared, so a busy day is left raw.
 */
async function ensureToday(db: Db, clientId: string, range: Range): Promise<void> {
  const now = Date.now();
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  if (range.to.getTime() <= today || !wholeDaysOf(range, now)) return;
  const [state] = rowsOf(
    await db.execute(sql`
      select day::text as day, computed_to from account_engagement_today where client_id = ${clientId}`),
  );
  if (
    state &&
    String(state.day) === dateOf(today) &&
    new Date(state.computed_to as string).getTime() >= now - TODAY_EVERY_MS
  )
    return;
  await db.transaction(async (tx) => {
    const [lock] = rowsOf(
      await tx.execute(sql`
        select pg_try_advisory_xact_lock(engagement_rollup_key(${clientId}::uuid, ${dateOf(today)}::date)) as ok`),
    );
    if (!lock?.ok) return;
    await tx.execute(sql`delete from account_engagement_today where client_id = ${clientId}`);
    // A minute back: events are written at "now", so one dated before is late and forgets this. The
    // client's totals by type up to then too (migration 0069): the summary's event counts read them
    // instead of today's raw events (tens of thousands at the reports bench's size).
    await tx.execute(sql`
      insert into account_engagement_today (client_id, day, computed_to, impressions, clicks, views)
      select ${clientId}, ${dateOf(today)}::date, t.computed_to, c.impressions, c.clicks, c.views
        from (select greatest(${new Date(today)}::timestamptz, now() - interval '1 minute') as computed_to) t
        cross join lateral (
          select count(*) filter (where e.type = 'impression') as impressions,
                 count(*) filter (where e.type = 'click') as clicks,
                 count(*) filter (where e.type = 'view') as views
            from engagement_events e
           where e.client_id = ${clientId} and e.occurred_at >= ${new Date(today)} and e.occurred_at < t.computed_to
        ) c`);
    await tx.execute(sql`
      with raw_events as (
        select t.prospect_id, e.type, e.occurred_at
          from engagement_events e
          join targets t on t.id = e.target_id and t.client_id = ${clientId}
         where e.client_id = ${clientId} and e.occurred_at >= ${new Date(today)}
           and e.occurred_at < (select computed_to from account_engagement_today where client_id = ${clientId})
      ),
      ${prospectTies(clientId, sql`select distinct re.prospect_id as id from raw_events re`)}
      insert into account_engagement_today_rows (client_id, company_id, impressions, clicks, views, last_at)
      select ${clientId}, rt.company_id, count(*) filter (where re.type = 'impression'),
             count(*) filter (where re.type = 'click'), count(*) filter (where re.type = 'view'), max(re.occurred_at)
        from raw_events re
        join raw_ties rt on rt.prospect_id = re.prospect_id
       group by rt.company_id`);
  });
}

async function countMonths(db: Db, clientId: string, range: Range): Promise<number> {
  const now = Date.now();
  const spans = monthSpans(range, now);
  if (!spans.length) return 0;
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const months = spans.map((s) => dateOf(s.month));
  const counted = new Map(
    rowsOf(
      await db.execute(sql`
        select month::text as month, through::text as through from account_engagement_months
         where client_id = ${clientId} and month = any(${dateArray(months)})`),
    ).map((r) => [String(r.month), Date.parse(`${String(r.through)}T00:00:00Z`)]),
  );
  // Each month is counted to its end or to today, so later ranges reuse it.
  const wanted = spans.filter(
    (s) => (counted.get(dateOf(s.month)) ?? s.month) < Math.min(nextMonth(s.month), today),
  );
  if (!wanted.length) return 0;
  // The days to add need their daily markers: the daily rollups make them.
  const last = wanted.reduce((m, s) => Math.max(m, s.month), 0);
  await ensureRollups(db, clientId, {
    from: new Date(Math.min(...wanted.map((s) => s.month))),
    to: new Date(Math.min(nextMonth(last), today)),
  });
  return db.transaction(async (tx) => {
    const state = new Map(
      rowsOf(
        await tx.execute(sql`
          select month::text as month, through::text as through from account_engagement_months
           where client_id = ${clientId} and month = any(${dateArray(wanted.map((s) => dateOf(s.month)))})
           order by month for update`),
      ).map((r) => [String(r.month), Date.parse(`${String(r.through)}T00:00:00Z`)]),
    );
    const adds: { month: string; lo: number; hi: number }[] = [];
    for (const s of wanted) {
      const lo = state.get(dateOf(s.month)) ?? s.month;
      const end = Math.min(nextMonth(s.month), today);
      if (lo >= end) continue;
      const days: string[] = [];
      for (let t = lo; t < end; t += DAY_MS) days.push(dateOf(t));
      // Days in order, up to the first whose lock is busy or whose marker is missing or stale.
      const ready = rowsOf(
        await tx.execute(sql`
          select d.day::text as day,
                 pg_try_advisory_xact_lock(engagement_rollup_key(${clientId}::uuid, d.day)) as locked,
                 exists (select 1 from engagement_rollup_days m
                          where m.client_id = ${clientId} and m.day = d.day
                            and (m.folded or m.part is not distinct from engagement_partition_of(m.day))) as marked
            from unnest(${dateArray(days)}) with ordinality d(day, n) order by n`),
      );
      let hi = lo;
      for (const r of ready) {
        if (!r.locked || !r.marked) break;
        hi += DAY_MS;
      }
      if (hi > lo) adds.push({ month: dateOf(s.month), lo, hi });
    }
    if (!adds.length) return 0;
    await tx.execute(sql`
      insert into account_engagement_months (client_id, month, through)
      select ${clientId}, m, m from unnest(${dateArray(adds.map((a) => a.month))}) m
      on conflict (client_id, month) do nothing`);
    await addDays(tx, clientId, accountProspects(clientId), adds);
    // A first count leaves the planner's statistics saying the table is empty, and the reads' plans
    // then expect a handful of rows per month instead of one per account.
    const added = adds.reduce((n, a) => n + (a.hi - a.lo) / DAY_MS, 0);
    if (added >= ANALYZE_AFTER_DAYS) {
      await tx.execute(sql`analyze account_engagement`);
      await tx.execute(sql`analyze account_engagement_days`);
    }
    for (const a of adds)
      await tx.execute(sql`
        update account_engagement_months set through = ${dateOf(a.hi)}::date, built_at = now()
         where client_id = ${clientId} and month = ${a.month}::date`);
    return added;
  });
}

/**
 * Extends every client's counted months that days closed since (yesterday, the end of last month),
 * and counts today's again, in the background (jobs.ts), so reports do not pay for it.
 */
export async function extendAccountMonths(db: Db): Promise<number> {
  const behind = rowsOf(
    await db.execute(sql`
      select client_id, min(month)::text as month from (
        select client_id, month from account_engagement_months
         where through < least((month + interval '1 month')::date, (now() at time zone 'UTC')::date)
        union all
        select client_id, (now() at time zone 'UTC')::date - 1 from account_engagement_today
      ) x group by client_id`),
  );
  let days = 0;
  for (const r of behind)
    days += await ensureAccountMonths(db, String(r.client_id), {
      from: new Date(`${String(r.month)}T00:00:00Z`),
      to: new Date(),
    });
  return days;
}

/**
 * Adds the events of the days [lo, hi) of each month to its accounts' cumulative counts. `ties` is a
 * CTE `account_prospects (company_id, prospect_id)`: the client's, or only some accounts'.
 */
async function addDays(
  db: Db,
  clientId: string,
  ties: SQL,
  adds: { month: string; lo: number; hi: number }[],
  companies?: string[],
) {
  const los = adds.map((a) => new Date(a.lo).toISOString());
  const his = adds.map((a) => new Date(a.hi).toISOString());
  await db.execute(sql`
    with ${ties},
    spans as (
      select * from unnest(${dateArray(adds.map((a) => a.month))}, ${`{${los.join(',')}}`}::timestamptz[],
                           ${`{${his.join(',')}}`}::timestamptz[]) s(month, lo, hi)
    ),
    daily as (
      select s.month, ap.company_id, extract(day from e.occurred_at at time zone 'UTC')::int as i,
             count(*) filter (where e.type = 'impression') as imp,
             count(*) filter (where e.type = 'click') as clk,
             count(*) filter (where e.type = 'view') as vw,
             max(e.occurred_at) as last_at
        from spans s
        join engagement_events e on e.client_id = ${clientId} and e.occurred_at >= s.lo and e.occurred_at < s.hi
        join targets t on t.id = e.target_id and t.client_id = ${clientId}
        join account_prospects ap on ap.prospect_id = t.prospect_id
       group by 1, 2, 3
    ),
    cum as (
      select a.month, a.company_id, g.i,
             (sum(coalesce(x.imp, 0)) over w)::int as imp, (sum(coalesce(x.clk, 0)) over w)::int as clk,
             (sum(coalesce(x.vw, 0)) over w)::int as vw, max(x.last_at) over w as last_at
        from (select distinct month, company_id from daily) a
        cross join lateral generate_series(1, extract(day from a.month + interval '1 month' - interval '1 day')::int) g(i)
        left join daily x on x.month = a.month and x.company_id = a.company_id and x.i = g.i
      window w as (partition by a.month, a.company_id order by g.i)
    )
    insert into account_engagement_days as r (client_id, month, company_id, impressions, clicks, views, last_at)
    select ${clientId}, month, company_id, array_agg(imp order by i), array_agg(clk order by i),
           array_agg(vw order by i), array_agg(last_at order by i)
      from cum group by month, company_id
    on conflict (client_id, month, company_id) do update set
      impressions = (select array_agg(a + b order by n) from unnest(r.impressions, excluded.impressions) with ordinality u(a, b, n)),
      clicks = (select array_agg(a + b order by n) from unnest(r.clicks, excluded.clicks) with ordinality u(a, b, n)),
      views = (select array_agg(a + b order by n) from unnest(r.views, excluded.views) with ordinality u(a, b, n)),
      last_at = (select array_agg(greatest(a, b) order by n) from unnest(r.last_at, excluded.last_at) with ordinality u(a, b, n))`);
  // The totals are the last element: past `through` the cumulative counts repeat the last counted day.
  // `days` has bit i-1 set when day i had an event (the cumulative sum grew that day).
  await db.execute(sql`
    insert into account_engagement as r (client_id, month, company_id, impressions, clicks, views, last_at, days)
    select d.client_id, d.month, d.company_id, d.impressions[cardinality(d.impressions)],
           d.clicks[cardinality(d.clicks)], d.views[cardinality(d.views)], d.last_at[cardinality(d.last_at)],
           (select coalesce(bit_or(1 << (x.n::int - 1)), 0)
              from (select n, i + c + v - lag(i + c + v, 1, 0) over (order by n) as k
                      from unnest(d.impressions, d.clicks, d.views) with ordinality u(i, c, v, n)) x
             where x.k > 0)
      from account_engagement_days d
     where d.client_id = ${clientId} and d.month = any(${dateArray(adds.map((a) => a.month))})
       ${companies ? sql`and d.company_id = any(${sql.param(companies)}::uuid[])` : sql``}
    on conflict (client_id, month, company_id) do update set
      impressions = excluded.impressions, clicks = excluded.clicks, views = excluded.views, last_at = excluded.last_at,
      days = excluded.days`);
  await rebuildYears(
    db,
    clientId,
    adds.map((a) => a.month),
    companies,
  );
}

/**
 * Rebuilds the year rows (`account_engagement_years`, migration 0033) of the years of `months` from
 * the narrow rows, for `companies` or every account. Called where the narrow rows change, in the same
 * transaction; a month deleted since (its marker's trigger) leaves its bits in place, unread: readers
 * take a month's bits only while the month is valid.
 */
async function rebuildYears(db: Db, clientId: string, months: string[], companies?: string[]) {
  const years = [...new Set(months.map((m) => Number(m.slice(0, 4))))];
  if (!years.length) return;
  const inYears = sql`${`{${years.join(',')}}`}::int[]`;
  const only = companies ? sql`and company_id = any(${sql.param(companies)}::uuid[])` : sql``;
  await db.execute(sql`
    delete from account_engagement_years where client_id = ${clientId} and year = any(${inYears}) ${only}`);
  const byMonth = Array.from(
    { length: 12 },
    (_, i) =>
      sql`coalesce(max(days) filter (where extract(month from month) = ${sql.raw(String(i + 1))}), 0)`,
  );
  await db.execute(sql`
    insert into account_engagement_years (client_id, year, company_id, days)
    select client_id, extract(year from month)::int, company_id, array[${sql.join(byMonth, sql`, `)}]
      from account_engagement
     where client_id = ${clientId} and month >= ${`${Math.min(...years)}-01-01`}::date
       and month < ${`${Math.max(...years) + 1}-01-01`}::date
       and extract(year from month)::int = any(${inYears}) ${only}
     group by 1, 2, 3`);
}

/**
 * After the ties of some accounts changed: counts those accounts again in every counted month, or
 * forgets the client's months when there are many (or `all`), to be counted again at the next read.
 */
export async function forgetAccounts(db: Db, clientId: string, companies: string[] | 'all'): Promise<void> {
  if (companies !== 'all' && !companies.length) return;
  // Today's counts are a minute's work: counted again at the next read.
  await db.execute(sql`delete from account_engagement_today where client_id = ${clientId}`);
  if (companies === 'all' || companies.length > RECOUNT_ACCOUNTS_MAX) {
    await db.execute(sql`delete from account_engagement_months where client_id = ${clientId}`);
    await forgetHours(db, clientId, 'all');
    return;
  }
  await forgetHours(db, clientId, companies);
  const ids = sql`${sql.param(companies)}::uuid[]`;
  await db.execute(sql`
    delete from account_engagement where client_id = ${clientId} and company_id = any(${ids})`);
  await db.execute(sql`
    delete from account_engagement_days where client_id = ${clientId} and company_id = any(${ids})`);
  const months = rowsOf(
    await db.execute(sql`
      select month::text as month, through::text as through from account_engagement_months
       where client_id = ${clientId} and through > month order by month for update`),
  ).map((r) => ({
    month: String(r.month),
    lo: Date.parse(`${String(r.month)}T00:00:00Z`),
    hi: Date.parse(`${String(r.through)}T00:00:00Z`),
  }));
  // After the months are locked: sums made from them meanwhile are in, and go.
  await forgetRangeSums(db, clientId);
  if (months.length)
    await addDays(db, clientId, accountProspects(clientId, sql`select unnest(${ids})`), months, companies);
}

/**
 * The accounts the given prospects are tied to, as pairs: a CTE `<name> (company_id, prospect_id)`
 * over the prospects of `prospects` (a query of `id`s), from the stored ties (repository.ts
 * `accountProspects`).
 */
export function prospectTies(clientId: string, prospects: SQL, name = 'raw_ties'): SQL {
  const ids = sql.raw(`${name}_prospects`);
  // The stored ties (migration 0037), one probe of their key per prospect.
  return sql`${ids} as (${prospects}),
    ${sql.raw(name)} as (
      select pt.company_id, pt.prospect_id from prospect_account_ties pt
       where pt.prospect_id in (select id from ${ids}) and pt.client_id = ${clientId}
    )`;
}

/**
 * Runs a statement that reads `accountEngagementIn`, without parallel workers. The branches a month's
 * validity gates off are planned for the month's events; a parallel plan starts its workers even
 * when the gate is false (hundreds of ms on two cores for nothing). The raw branches that do run are
 * a few thousand events, through indexes.
 */
export async function readAccountEngagement(db: Db, query: SQL) {
  return withoutParallelWorkers(db, query);
}

/**
 * Runs a statement with a plan of one process. Where a call runs several statements side by side
 * (dashboard/stats), each one's parallel workers only compete with the others for the same cores.
 */
export async function withoutParallelWorkers(db: Db, query: SQL) {
  return db.transaction(async (tx) => {
    await tx.execute(sql`set local max_parallel_workers_per_gather = 0`);
    return tx.execute(query);
  });
}

/** The day a range starts in when it is taken from the counts: its month, day of the month, and the
 * month's validity through it. */
type StartDay = { month: string; d: number; valid: SQL };

/**
 * The parts of a range as account-rollups.ts reads them: each month's span of whole days (read from
 * the counts by `monthPart`, gated on the month's validity), today's counts when the range reaches
 * today (`todayPart`), and a CTE `raw_events (prospect_id, type, occurred_at)` of every other moment.
 */
function rangeParts(
  clientId: string,
  range: Range,
  monthPart: (s: MonthSpan) => SQL[],
  todayPart: (counted: SQL) => SQL,
  startDayPart: (s: StartDay) => SQL,
  // The start day's part gives the accounts with events from `from` on by itself (from each day's
  // last event moment), so no event before `from` is read, whatever the hour.
  startDayWhole = false,
  // The start day from hour k on, from its rows by hour (account-hours.ts), where they hold.
  hoursPart?: (day: number, k: number) => SQL,
  // Each validity gate of the raw branches through this (`gateRow`: once per statement).
  gate: Gate = (e) => e,
): { parts: SQL[]; rawEvents: SQL; startDay: SQL | null } {
  // The raw intervals: before the first whole day, after the last, and each month's days when the
  // month is not valid in this snapshot. Each is its own branch, so a gate without columns is a
  // one-time filter: a valid month's events are never read. Each event's target by its key (lateral,
  // kept apart by `offset 0`): planned for a gated month's events, or for a start day cut just after
  // midnight (a whole day of events), a join hashed the client's million targets first (0.4 s).
  const raw = (from: Date | SQL, to: Date, gate?: SQL, sign = 1) => sql`
    select t.prospect_id, e.type, e.occurred_at, ${sql.raw(String(sign))} as sign
      from engagement_events e
      cross join lateral (
        select t.prospect_id from targets t where t.id = e.target_id and t.client_id = ${clientId} offset 0
      ) t
     where e.client_id = ${clientId} and e.occurred_at >= ${from} and e.occurred_at < ${to}
       ${gate ? sql`and not ${gate}` : sql``}`;
  const raws: SQL[] = [];
  const parts: SQL[] = [];
  let startDay: SQL | null = null;
  const whole = wholeDaysOf(range);
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  // The day the range starts in, when the range cuts it: raw from `from` to its end, unless `from`
  // is in its first half and the day is counted (its month valid through it). Then the day's counts
  // are taken from the counts, minus the events before `from` (`sign` -1): the smaller raw side.
  const startEdge = (first: number) => {
    const dayStart = first - DAY_MS;
    const cut = range.from.getTime() - dayStart;
    // The start day's rows by hour (account-hours.ts), when given and made: the hours from `from`'s
    // next on from them, the rest of `from`'s hour raw. The ways below only while they do not hold.
    const hours = hoursPart ? startHoursDay(range) : null;
    const held = hours?.day === dayStart ? gate(hoursValid(clientId, dayStart), `hours ${dayStart}`) : null;
    if (hours && held && hoursPart) {
      raws.push(raw(range.from, new Date(dayStart + hours.k * HOUR_MS), sql`not ${held}`));
      parts.push(hoursPart(hours.day, hours.k));
    }
    // A gate (the branch reads when it is false) that is also true while the hours hold.
    const unless = (gate?: SQL) => (held ? (gate ? sql`(${gate} or ${held})` : held) : gate);
    if (cut <= 0 || cut >= DAY_MS || (!startDayWhole && cut > DAY_MS / 2)) {
      raws.push(raw(range.from, new Date(first), unless()));
      return;
    }
    const month = dateOf(monthOf(dayStart));
    const valid = monthGate(gate, clientId, month, dateOf(first));
    raws.push(raw(range.from, new Date(first), unless(valid)));
    if (!startDayWhole) raws.push(raw(new Date(dayStart), range.from, unless(sql`not ${valid}`), -1));
    startDay = startDayPart({
      month,
      d: dayOfMonth(dayStart),
      valid: held ? sql`(${valid} and not ${held})` : valid,
    });
  };
  if (!whole) raws.push(raw(range.from, range.to));
  else if (whole.end === today && range.to.getTime() > today) {
    startEdge(whole.first);
    // Today: its counts up to `computed_to` when they hold (ensureToday), the events after raw.
    const counted = sql`(select computed_to from account_engagement_today
      where client_id = ${clientId} and day = ${dateOf(today)}::date and computed_to <= ${range.to})`;
    parts.push(todayPart(counted));
    raws.push(raw(sql`coalesce(${counted}, ${new Date(today)})`, range.to));
  } else {
    startEdge(whole.first);
    raws.push(raw(new Date(whole.end), range.to));
  }
  for (const s of monthSpans(range)) {
    const month = dateOf(s.month);
    const hi = dateOf(s.hi);
    parts.push(...monthPart({ month, hi, lo: s.lo, a: dayOfMonth(s.lo), b: dayOfMonth(s.hi - DAY_MS) }));
    raws.push(raw(new Date(s.lo), new Date(s.hi), monthGate(gate, clientId, month, hi)));
  }
  return { parts, rawEvents: sql.join(raws, sql` union all `), startDay };
}

/**
 * A CTE `account_engagement_in (company_id, impressions, clicks, views, last_at)`: each account's
 * events in the range (accounts without any are absent), exact in the statement's snapshot. Counted
 * months give the whole days they cover; every other moment of the range is read raw. Call
 * `ensureAccountMonths` first, or everything is read raw. `companies` (a query of ids) keeps only those.
 */
export function accountEngagementIn(clientId: string, range: Range, companies?: SQL): SQL {
  const only = (col: SQL) => (companies ? sql`and ${col} in (${companies})` : sql``);
  // Each validity gate (a month's markers counted, a kept part made) evaluated once per statement, in
  // one row (`account_gates`), however many branches test it. Written out, the same gates repeated in
  // every branch cost about 0.5 ms each, 43 of them for a 90-day range.
  const { gate, cte: gatesCte } = gateRow('account_gates');
  // The whole days from their kept sums per account where they hold (account-ranges.ts), else by month;
  // with a cut start day, the two from their kept span where it holds (account-spans.ts).
  const sums = rangeSums(clientId, range, gate);
  const span = sums ? rangeSpan(clientId, range, gate) : null;
  const unlessSpan = span ? sql`and not ${span.valid}` : sql``;
  const { parts, rawEvents, startDay } = rangeParts(
    clientId,
    range,
    (s) => monthCountParts(clientId, s, only, sums ? sql`not ${sums.valid}` : undefined, gate),
    (counted) => sql`
      select r.company_id, r.impressions, r.clicks, r.views, r.last_at
        from account_engagement_today_rows r
       where r.client_id = ${clientId} and ${counted} is not null ${only(sql`r.company_id`)}`,
    ({ month, d, valid }) => {
      const day = (col: string) =>
        sql`r.${sql.raw(col)}[${d}] - ${d > 1 ? sql`r.${sql.raw(col)}[${d - 1}]` : sql`0`}`;
      return sql`
        select r.company_id, ${day('impressions')} as impressions, ${day('clicks')} as clicks,
               ${day('views')} as views,
               case when r.last_at[${d}] >= ${range.from} then r.last_at[${d}] end as last_at
          from account_engagement_days r
         where r.client_id = ${clientId} and r.month = ${month}::date and ${valid} ${only(sql`r.company_id`)}`;
    },
    false,
    (day, k) =>
      startHoursPart(
        clientId,
        day,
        k,
        (col) => sql`${unlessSpan} ${only(col)}`,
        gate(hoursValid(clientId, day), `hours ${day}`),
      ),
    gate,
  );
  if (startDay) parts.push(startDay);
  if (sums) parts.push(sums.part((col) => sql`${unlessSpan} ${only(col)}`));
  if (span) parts.push(span.part(only));
  // Every part's counts as integers: summed per account in 64-bit integers, not in numeric.
  return sql`${gatesCte()},
    raw_events as (${rawEvents}),
    ${prospectTies(clientId, sql`select distinct re.prospect_id as id from raw_events re`)},
    account_engagement_parts as (
      ${parts.length ? sql`${sql.join(parts, sql` union all `)} union all` : sql``}
      select rt.company_id, coalesce(sum(re.sign) filter (where re.type = 'impression'), 0)::int as impressions,
             coalesce(sum(re.sign) filter (where re.type = 'click'), 0)::int as clicks,
             coalesce(sum(re.sign) filter (where re.type = 'view'), 0)::int as views,
             max(re.occurred_at) filter (where re.sign > 0) as last_at
        from raw_events re
        join raw_ties rt on rt.prospect_id = re.prospect_id
       where true ${only(sql`rt.company_id`)}
       group by rt.company_id
    ),
    account_engagement_in as (
      select company_id, sum(impressions)::bigint as impressions, sum(clicks)::bigint as clicks,
             sum(views)::bigint as views, max(last_at) as last_at
        from account_engagement_parts
       group by company_id
      having sum(impressions) + sum(clicks) + sum(views) > 0
    )`;
}

/**
 * A CTE `accounts_engaged_in (company_id)`: the accounts with an event in the range, the same set as
 * `account_engagement_in` without the counts (the summary's engaged accounts). The counted months are
 * read from the year rows (migration 0033): one row per account and year whose months' day bits
 * (migration 0032) tell the days with events, each month's bits taken while the month is valid (else
 * its days are read raw), so a range of four months reads one row per account, not four.
 */
export function accountsEngagedIn(clientId: string, range: Range): SQL {
  // The months' validity once per statement (`gateRow`): the year rows and the raw branches test it.
  const { gate, cte: gatesCte } = gateRow('engaged_gates');
  // A year row's accounts with events on the counted days of the range's months of that year (each
  // month's bits taken while the month is valid); null when the range counts no month of that year.
  const engagedInYear = (year: number): SQL | null => {
    const any = monthSpans(range)
      .filter((s) => new Date(s.month).getUTCFullYear() === year)
      .map((s) => {
        const month = dateOf(s.month);
        const a = dayOfMonth(s.lo);
        const b = dayOfMonth(s.hi - DAY_MS);
        return sql`(${monthGate(gate, clientId, month, dateOf(s.hi))}
        and y.days[${sql.raw(String(new Date(s.month).getUTCMonth() + 1))}] & ${sql.raw(String(2 ** b - 2 ** (a - 1)))} <> 0)`;
      });
    return any.length ? sql`(${sql.join(any, sql` or `)})` : null;
  };
  const { parts, rawEvents, startDay } = rangeParts(
    clientId,
    range,
    () => [],
    (counted) => sql`
      select r.company_id from account_engagement_today_rows r
       where r.client_id = ${clientId} and ${counted} is not null`,
    // The start day's accounts: of those whose year row says they had events that day, the ones
    // whose last event through that day (last_at is a running maximum) is at or after `from`. An
    // account the same year row already counts for a later day of the range is not looked up (its
    // day row is a probe of a wide row: 9,441 of them, 180 ms at the reports bench's size, for
    // accounts nearly all engaged on other days too).
    ({ month, d, valid }) => {
      const seen = engagedInYear(Number(month.slice(0, 4)));
      return sql`
        select r.company_id, 1 as n
          from account_engagement_years y
          join account_engagement_days r on r.client_id = y.client_id and r.month = ${month}::date
           and r.company_id = y.company_id
         where y.client_id = ${clientId} and y.year = ${sql.raw(month.slice(0, 4))} and ${valid}
           and y.days[${sql.raw(String(Number(month.slice(5, 7))))}] & ${sql.raw(String(2 ** (d - 1)))} <> 0
           ${seen ? sql`and not ${seen}` : sql``}
           and r.last_at[${d}] >= ${range.from}`;
    },
    true,
    undefined,
    gate,
  );

  const years = new Set(monthSpans(range).map((s) => new Date(s.month).getUTCFullYear()));
  for (const year of years) {
    const any = engagedInYear(year);
    if (any)
      parts.push(sql`
      select y.company_id from account_engagement_years y
       where y.client_id = ${clientId} and y.year = ${sql.raw(String(year))} and ${any}`);
  }
  return sql`${gatesCte()},
    raw_events as (${rawEvents}),
    ${prospectTies(clientId, sql`select distinct re.prospect_id as id from raw_events re`)},
    accounts_engaged_in as (
      ${parts.length ? sql`${sql.join(parts, sql` union `)} union` : sql``}
      -- The raw events beside the start day's accounts.
      select x.company_id from (
        ${startDay ? sql`${startDay} union all` : sql``}
        select rt.company_id, re.sign as n from raw_events re join raw_ties rt on rt.prospect_id = re.prospect_id
      ) x group by x.company_id having sum(x.n) > 0
    )`;
}
