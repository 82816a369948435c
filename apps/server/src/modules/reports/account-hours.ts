import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { rowsOf } from './report-sql.ts';
import type { Range } from './report-sql.ts';
import { ensureRollups } from './rollups.ts';

/**
 * The day a range starts in, per account and hour (migration 0075; docs/reports.md "Account rollups").
 *
 * Why: `alignment`'s range ends at the moment of the call and so cuts its first day at that hour; the
 * cut part was read raw at every call (up to half a day of events, each tied to its accounts: about
 * half of alignment's time at the reports bench's size). With each account's events of the day by
 * hour (as suffix sums), that part is one subscript of a row per account plus at most an hour raw.
 *
 * Why it stays exact (as the month rollups, account-rollups.ts): a day's rows are made under the day's
 * exclusive lock (writers of its events hold it shared) from a snapshot taken after it, only while its
 * rollup marker is valid; a write of the day's events deletes the marker and these rows with it
 * (cascade); a read takes them only while the marker is valid and the day not folded; changed ties
 * count the accounts they name again (`forgetHours`).
 */

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** How many days' rows a client keeps (the latest made). */
const KEEP_DAYS = 7;

/**
 * The day a range starts in when its rows can serve the cut: a closed day before the range's first
 * whole day, cut after its first hour and before its last (from the last hour on, the cut is at most
 * an hour and read raw). With `k`, the first whole hour of the day in the range.
 */
export function startHoursDay(range: Range, now = Date.now()): { day: number; k: number } | null {
  const from = range.from.getTime();
  const day = Math.floor(from / DAY_MS) * DAY_MS;
  const k = Math.ceil((from - day) / HOUR_MS);
  // The range must reach past the day's end, and the day must be closed (before today).
  if (
    k <= 0 ||
    k >= 24 ||
    range.to.getTime() <= day + DAY_MS ||
    day + DAY_MS > Math.floor(now / DAY_MS) * DAY_MS
  )
    return null;
  return { day, k };
}

/** The day's rows hold in this snapshot: made, and its marker valid and not folded. */
export function hoursValid(clientId: string, day: number): SQL {
  return sql`exists (
    select 1 from account_engagement_hour_days h
      join engagement_rollup_days d on d.client_id = h.client_id and d.day = h.day
     where h.client_id = ${clientId} and h.day = ${dateOf(day)}::date
       and not d.folded and d.part is not distinct from engagement_partition_of(d.day))`;
}

/**
 * The part of the range's start day from hour `k` on, per account, from the day's rows (gated on
 * `hoursValid`): rows of (company_id, impressions, clicks, views, last_at).
 */
export function startHoursPart(
  clientId: string,
  day: number,
  k: number,
  only: (col: SQL) => SQL,
  valid: SQL = hoursValid(clientId, day),
): SQL {
  const i = sql.raw(String(k + 1));
  return sql`
    select h.company_id, h.impressions[${i}] as impressions, h.clicks[${i}] as clicks, h.views[${i}] as views,
           case when h.last_at >= ${new Date(day + k * HOUR_MS)} then h.last_at end as last_at
      from account_engagement_hours h
     where h.client_id = ${clientId} and h.day = ${dateOf(day)}::date and ${valid}
       ${only(sql`h.company_id`)}`;
}

/**
 * Makes the rows of the day the range starts in when it cuts it and they are missing (its daily
 * rollup made first when that is missing too). A day whose lock is busy, or whose marker is missing,
 * stale or folded, is left: the read takes it raw.
 */
export async function ensureStartHours(db: Db, clientId: string, range: Range): Promise<void> {
  const start = startHoursDay(range);
  if (!start) return;
  const day = dateOf(start.day);
  const [have] = rowsOf(await db.execute(sql`select ${hoursValid(clientId, start.day)} as ok`));
  if (have?.ok) return;
  await ensureRollups(db, clientId, { from: new Date(start.day), to: new Date(start.day + DAY_MS) });
  await db.transaction(async (tx) => {
    const [state] = rowsOf(
      await tx.execute(sql`
        select pg_try_advisory_xact_lock(engagement_rollup_key(${clientId}::uuid, ${day}::date)) as locked,
               exists (select 1 from engagement_rollup_days d
                        where d.client_id = ${clientId} and d.day = ${day}::date and not d.folded
                          and d.part is not distinct from engagement_partition_of(d.day)) as marked`),
    );
    if (!state?.locked || !state.marked) return;
    // A stale set (its marker since made again for another partition) goes first.
    await tx.execute(sql`
      delete from account_engagement_hour_days where client_id = ${clientId} and day = ${day}::date`);
    await tx.execute(sql`
      insert into account_engagement_hour_days (client_id, day) values (${clientId}, ${day}::date)`);
    await addHours(tx, clientId, [day]);
    // The days kept are those ranges started in lately: changed ties count each of them again.
    await tx.execute(sql`
      delete from account_engagement_hour_days
       where client_id = ${clientId} and day not in (
         select day from account_engagement_hour_days where client_id = ${clientId}
          order by built_at desc, day desc limit ${KEEP_DAYS})`);
  });
}

/**
 * Counts the events of `days` (made days) per account and hour, for `companies` or every account,
 * from the stored ties.
 */
async function addHours(db: Db, clientId: string, days: string[], companies?: string[]) {
  const only = companies ? sql`and pt.company_id = any(${sql.param(companies)}::uuid[])` : sql``;
  await db.execute(sql`
    with by_hour as (
      select d.day, pt.company_id, extract(hour from e.occurred_at at time zone 'UTC')::int as h,
             count(*) filter (where e.type = 'impression') as imp,
             count(*) filter (where e.type = 'click') as clk,
             count(*) filter (where e.type = 'view') as vw,
             max(e.occurred_at) as last_at
        from unnest(${`{${days.join(',')}}`}::date[]) d(day)
        join engagement_events e
          on e.client_id = ${clientId}
         and e.occurred_at >= d.day::timestamp at time zone 'UTC'
         and e.occurred_at < (d.day + 1)::timestamp at time zone 'UTC'
        join targets t on t.id = e.target_id and t.client_id = ${clientId}
        join prospect_account_ties pt on pt.prospect_id = t.prospect_id and pt.client_id = ${clientId} ${only}
       group by 1, 2, 3
    ),
    -- Each account's 24 hours, summed from the day's end backwards: [h+1] counts hours h..23.
    suffix as (
      select a.day, a.company_id, g.h,
             (sum(coalesce(x.imp, 0)) over w)::int as imp, (sum(coalesce(x.clk, 0)) over w)::int as clk,
             (sum(coalesce(x.vw, 0)) over w)::int as vw, max(x.last_at) over w as last_at
        from (select distinct day, company_id from by_hour) a
        cross join generate_series(0, 23) g(h)
        left join by_hour x on x.day = a.day and x.company_id = a.company_id and x.h = g.h
      window w as (partition by a.day, a.company_id order by g.h desc)
    )
    insert into account_engagement_hours (client_id, day, company_id, impressions, clicks, views, last_at)
    select ${clientId}, day, company_id, array_agg(imp order by h), array_agg(clk order by h),
           array_agg(vw order by h), max(last_at)
      from suffix group by day, company_id`);
}

/**
 * After the ties of some accounts changed (account-rollups.ts `forgetAccounts`): counts those accounts
 * of every made day again, or forgets the client's days (`all`), made again when a range starts there.
 */
export async function forgetHours(db: Db, clientId: string, companies: string[] | 'all'): Promise<void> {
  if (companies === 'all') {
    await db.execute(sql`delete from account_engagement_hour_days where client_id = ${clientId}`);
    return;
  }
  if (!companies.length) return;
  await db.execute(sql`
    delete from account_engagement_hours
     where client_id = ${clientId} and company_id = any(${sql.param(companies)}::uuid[])`);
  const days = rowsOf(
    await db.execute(sql`
      select day::text as day from account_engagement_hour_days where client_id = ${clientId} order by day`),
  ).map((r) => String(r.day));
  if (days.length) await addHours(db, clientId, days, companies);
}
