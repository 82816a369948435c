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
 * Rolls up the client's whole closed days of the range that have no valid rollup. Each day is
 * counted in the transaction that holds its lock, from a snapshot taken after the lock was got.
 */
export async function ensureRollups(db: Db, clientId: string, range: Range): Promise<number> {
  const days = wholeDaysOf(range);
  if (!days) return 0;
  // A range reaching years back rolls up its last MAX_ROLLUP_DAYS only; the days before are read raw.
  const whole = { first: Math.max(days.first, days.end - MAX_ROLLUP_DAYS * DAY_MS), end: days.end };
  const missing = rowsOf(
    await db.execute(sql`
      select g.day::text as day
        from ${daySeries(whole)} g(day)
       where not exists (
         select 1 from engagement_rollup_days m
          where m.client_id = ${clientId} and m.day = g.day and ${validMarker})`),
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
    // Each day through the (client_id, occurred_at) index, however far apart the days are.
    await tx.execute(sql`
      insert into engagement_rollups (client_id, day, content_id, type, events)
      select ${clientId}, d.day, e.content_id, e.type, count(*)
        from unnest(${lockedDays}) d(day)
        join engagement_events e
          on e.client_id = ${clientId}
         and e.occurred_at >= d.day::timestamp at time zone 'UTC'
         and e.occurred_at < (d.day + 1)::timestamp at time zone 'UTC'
       group by 2, 3, 4`);
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
