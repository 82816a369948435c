import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import type { Range } from './report-sql.ts';

/**
 * Engagement counts of a range from daily rollups (docs/reports.md "Daily rollups", migration 0024).
 *
 * Why: counting a client's raw events over a 90-day range reads millions of rows (seconds at
 * 10,000,000 events); the counts per client, UTC day, content and type are a few thousand rows.
 *
 * Why it stays exact: a report must equal counting the raw events at every moment, and events also
 * arrive backdated (tests, the demo seed, a late batch) and may be deleted. So:
 * - only whole, closed days (before today, UTC) are rolled up; the edges of a range that cut a day,
 *   today, and any day without a valid rollup are counted from the raw events in the same statement;
 * - a day is rolled up lazily, at the first read that needs it, and counts only while its marker
 *   (engagement_rollup_days) exists and names the partition holding the day's events now;
 * - a statement-level trigger on engagement_events deletes the markers (and so the rollups) of the
 *   days of any rows inserted, updated or deleted; TRUNCATE deletes them all; a dropped or
 *   detached partition no longer matches the marker's partition; a deleted client cascades;
 * - the trigger takes the day's advisory lock shared and the rollup takes it exclusive: a rollup
 *   either runs after a writer of that day committed (and sees its rows) or commits before the
 *   writer's trigger deletes its marker. The rollup only tries the lock: a busy day is read raw.
 */

const rowsOf = (result: unknown) => (result as { rows: Record<string, unknown>[] }).rows;
const DAY_MS = 86_400_000;
/** The most days one call rolls up (two years and a day). */
const MAX_ROLLUP_DAYS = 731;
const dayStart = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The whole closed days of a range, [first, end) as day starts in ms; null when there are none. */
export function wholeDaysOf(range: Range, now = Date.now()): { first: number; end: number } | null {
  const first = Math.ceil(range.from.getTime() / DAY_MS) * DAY_MS;
  const end = Math.min(dayStart(range.to.getTime()), dayStart(now));
  return first < end ? { first, end } : null;
}

/**
 * The days [first, end) as a relation `(day date)`: an array parameter, which the planner takes for
 * a few rows (a join to the events then goes day by day through the index, as it should).
 */
function daySeries(whole: { first: number; end: number }): SQL {
  const days: string[] = [];
  for (let t = whole.first; t < whole.end; t += DAY_MS) days.push(dateOf(t));
  return sql`unnest(${`{${days.join(',')}}`}::date[])`;
}

/**
 * A marker that still holds: the day's events are in the partition they were rolled up from, or the
 * day was folded by retention (its rollups are then its only count, kept exact by the events
 * triggers: decision 0032).
 */
const validMarker = sql`(m.folded or m.part is not distinct from engagement_partition_of(m.day))`;

/**
 * The day a range starts in when the range cuts it (a closed day): `engagementTotals` reads the
 * hours of it after `from`'s hour from its marker (migration 0069), so at most an hour of it raw.
 */
function cutFirstDay(range: Range, now = Date.now()): number | null {
  const day = dayStart(range.from.getTime());
  return day < range.from.getTime() && day + DAY_MS <= dayStart(now) && day + DAY_MS < range.to.getTime()
    ? day
    : null;
}

/**
 * Rolls up the client's whole closed days of the range that have no valid rollup. Each day is
 * counted in the transaction that holds its lock, from a snapshot taken after the lock was got.
 * `cutDay`: also the closed day the range starts in, with its counts by hour (for the summary's
 * totals, `engagementTotals`), when its rollup has none.
 */
export async function ensureRollups(
  db: Db,
  clientId: string,
  range: Range,
  opts: { cutDay?: boolean } = {},
): Promise<number> {
  const days = wholeDaysOf(range);
  const cut = opts.cutDay ? cutFirstDay(range) : null;
  if (!days && cut === null) return 0;
  const candidates: string[] = [];
  if (cut !== null) candidates.push(dateOf(cut));
  if (days) {
    // A range reaching years back rolls up its last MAX_ROLLUP_DAYS only; the days before are read raw.
    const whole = { first: Math.max(days.first, days.end - MAX_ROLLUP_DAYS * DAY_MS), end: days.end };
    for (let t = whole.first; t < whole.end; t += DAY_MS) candidates.push(dateOf(t));
  }
  // A folded day keeps the counts it has (its raw events are gone): hours are never made for it.
  const hoursDay = cut === null ? sql`null::date` : sql`${dateOf(cut)}::date`;
  const missing = rowsOf(
    await db.execute(sql`
      select g.day::text as day
        from unnest(${`{${candidates.join(',')}}`}::date[]) g(day)
       where not exists (
         select 1 from engagement_rollup_days m
          where m.client_id = ${clientId} and m.day = g.day and ${validMarker}
            and (g.day is distinct from ${hoursDay} or m.folded or m.impressions_by_hour is not null))`),
  ).map((r) => String(r.day));
  if (!missing.length) return 0;
  return db.transaction(async (tx) => {
    const locked = rowsOf(
      await tx.execute(sql`
        select d.day::text as day
          from unnest(${`{${missing.join(',')}}`}::date[]) d(day)
         where pg_try_advisory_xact_lock(engagement_rollup_key(${clientId}::uuid, d.day))`),
    ).map((r) => String(r.day));
    if (!locked.length) return 0;
    const lockedDays = sql`${`{${locked.join(',')}}`}::date[]`;
    // A stale marker (another partition) goes with its rollups; then one marker per day, so a day
    // without events is known to be zero.
    await tx.execute(sql`
      delete from engagement_rollup_days where client_id = ${clientId} and day = any(${lockedDays})`);
    await tx.execute(sql`
      insert into engagement_rollup_days (client_id, day, part)
      select ${clientId}, d, engagement_partition_of(d) from unnest(${lockedDays}) d`);
    // Each day through the (client_id, occurred_at) index, however far apart the days are, in one
    // pass: per content and type, and per type by hour (cumulative: [k] counts the first k hours).
    await tx.execute(sql`
      with h as materialized (
        select d.day, e.content_id, e.type, extract(hour from e.occurred_at at time zone 'UTC')::int as hr,
               count(*) as n
          from unnest(${lockedDays}) d(day)
          join engagement_events e
            on e.client_id = ${clientId}
           and e.occurred_at >= d.day::timestamp at time zone 'UTC'
           and e.occurred_at < (d.day + 1)::timestamp at time zone 'UTC'
         group by 1, 2, 3, 4
      ),
      rolled as (
        insert into engagement_rollups (client_id, day, content_id, type, events)
        select ${clientId}, h.day, h.content_id, h.type, sum(h.n) from h group by 2, 3, 4
      ),
      by_hour as (
        select d.day, t.type,
               array(select coalesce((select sum(h.n) from h where h.day = d.day and h.type = t.type and h.hr < k), 0)::int
                       from generate_series(1, 24) k order by k) as cum
          from unnest(${lockedDays}) d(day)
          cross join (values ('impression'), ('click'), ('view')) t(type)
      )
      update engagement_rollup_days m
         set impressions_by_hour = i.cum, clicks_by_hour = c.cum, views_by_hour = v.cum
        from by_hour i, by_hour c, by_hour v
       where m.client_id = ${clientId} and m.day = i.day and i.type = 'impression'
         and c.day = i.day and c.type = 'click' and v.day = i.day and v.type = 'view'`);
    return locked.length;
  });
}

/**
 * A CTE `counts (day date, content_id uuid, type text, n bigint)`: the client's events of the range
 * counted per UTC day, content and type, from valid rollups for whole closed days and from the raw
 * events for the rest. `contentId` keeps one content item's. Exact in the statement's snapshot.
 */
export function engagementCounts(clientId: string, range: Range, contentId?: string): SQL {
  const whole = wholeDaysOf(range);
  const content = (alias: string) =>
    contentId ? sql`and ${sql.raw(alias)}.content_id = ${contentId}` : sql``;
  const raw = (from: Date, to: Date) => sql`
    select (e.occurred_at at time zone 'UTC')::date as day, e.content_id, e.type, count(*) as n
      from engagement_events e
     where e.client_id = ${clientId} and e.occurred_at >= ${from} and e.occurred_at < ${to} ${content('e')}
     group by 1, 2, 3`;
  if (!whole) return sql`counts as (${raw(range.from, range.to)})`;
  const first = new Date(whole.first);
  const end = new Date(whole.end);
  const firstDay = dateOf(whole.first);
  const endDay = dateOf(whole.end);
  return sql`valid_days as (
      select m.day from engagement_rollup_days m
       where m.client_id = ${clientId} and m.day >= ${firstDay}::date and m.day < ${endDay}::date
         and ${validMarker}
    ),
    counts as (
      select r.day, r.content_id, r.type, r.events::bigint as n
        from engagement_rollups r
       where r.client_id = ${clientId} and r.day in (select day from valid_days) ${content('r')}
      union all
      ${raw(range.from, first)}
      union all
      ${raw(end, range.to)}
      union all
      select g.day, e.content_id, e.type, count(*)
        from ${daySeries(whole)} g(day)
        join engagement_events e
          on e.client_id = ${clientId}
         and e.occurred_at >= g.day::timestamp at time zone 'UTC'
         and e.occurred_at < (g.day + 1)::timestamp at time zone 'UTC'
       where g.day not in (select day from valid_days) ${content('e')}
       group by 1, 2, 3
    )`;
}

/**
 * A CTE `type_counts (type text, n bigint)`: the client's events of the range by type (the summary's
 * totals), exact in the statement's snapshot. As `engagementCounts` without the content and day, and
 * today up to the moment it was counted (`account_engagement_today`, migrations 0031 and 0069: kept
 * exact by the events triggers, which forget it when an event before that moment is written, changed or
 * deleted) when that count holds, so only the events after it are read raw.
 */
export function engagementTotals(clientId: string, range: Range, now = Date.now()): SQL {
  // `gate`, a condition without columns, is a one-time filter: a branch gated off reads no event.
  const raw = (from: Date | SQL, to: Date, gate?: SQL) => sql`
    select e.type, count(*) as n from engagement_events e
     where e.client_id = ${clientId} and e.occurred_at >= ${from} and e.occurred_at < ${to}
       ${gate ? sql`and ${gate}` : sql``}
     group by 1`;
  const whole = wholeDaysOf(range, now);
  if (!whole) return sql`type_counts as (${raw(range.from, range.to)})`;
  const today = dayStart(now);
  const parts: SQL[] = [
    sql`select r.type, sum(r.events)::bigint as n from engagement_rollups r
         where r.client_id = ${clientId} and r.day in (select day from valid_days) group by 1`,
  ];
  const cut = cutFirstDay(range, now);
  if (cut === null || cut + DAY_MS !== whole.first) parts.push(raw(range.from, new Date(whole.first)));
  else {
    // The day `from` cuts: its hours after `from`'s hour from the marker's counts by hour while the
    // marker holds (not folded: the triggers keep a folded day's rollups, not its hours), the rest of
    // that hour raw; else the whole rest of the day raw.
    const h = Math.floor((range.from.getTime() - cut) / 3_600_000);
    const hourEnd = new Date(cut + (h + 1) * 3_600_000);
    const marker = sql`m.client_id = ${clientId} and m.day = ${dateOf(cut)}::date and not m.folded
      and m.part is not distinct from engagement_partition_of(m.day) and m.impressions_by_hour is not null`;
    const usable = sql`exists (select 1 from engagement_rollup_days m where ${marker})`;
    const rest = (col: string) =>
      sql`(m.${sql.raw(col)}[24] - m.${sql.raw(col)}[${sql.raw(String(h + 1))}])::bigint`;
    parts.push(sql`
      select x.type, x.n from engagement_rollup_days m
       cross join lateral (values ('impression', ${rest('impressions_by_hour')}),
                                  ('click', ${rest('clicks_by_hour')}), ('view', ${rest('views_by_hour')})) x(type, n)
       where ${marker}`);
    parts.push(raw(range.from, hourEnd, usable));
    parts.push(raw(range.from, new Date(whole.first), sql`not ${usable}`));
  }
  parts.push(
    sql`select e.type, count(*) from ${daySeries(whole)} g(day)
          join engagement_events e
            on e.client_id = ${clientId}
           and e.occurred_at >= g.day::timestamp at time zone 'UTC'
           and e.occurred_at < (g.day + 1)::timestamp at time zone 'UTC'
         where g.day not in (select day from valid_days)
         group by 1`,
  );
  if (whole.end === today && range.to.getTime() > today) {
    const counted = sql`(select computed_to from account_engagement_today
      where client_id = ${clientId} and day = ${dateOf(today)}::date and computed_to <= ${range.to}
        and impressions is not null)`;
    parts.push(sql`
      select x.type, x.n from account_engagement_today s
       cross join lateral (values ('impression', s.impressions::bigint), ('click', s.clicks::bigint),
                                  ('view', s.views::bigint)) x(type, n)
       where s.client_id = ${clientId} and s.computed_to = ${counted}`);
    parts.push(raw(sql`coalesce(${counted}, ${new Date(today)})`, range.to));
  } else parts.push(raw(new Date(whole.end), range.to));
  return sql`valid_days as (
      select m.day from engagement_rollup_days m
       where m.client_id = ${clientId} and m.day >= ${dateOf(whole.first)}::date and m.day < ${dateOf(whole.end)}::date
         and ${validMarker}
    ),
    type_counts as (
      select type, sum(n)::bigint as n from (${sql.join(parts, sql` union all `)}) p group by type
    )`;
}
