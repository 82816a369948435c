import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { rowsOf } from './report-sql.ts';
import type { Range } from './report-sql.ts';
import { dateOf } from './account-months.ts';
import { hoursValid, startHoursDay } from './account-hours.ts';
import { rangeSums } from './account-ranges.ts';
import { wholeDaysOf } from './rollups.ts';

/**
 * A range's whole days and the hours of the day it starts in, summed per account, kept (migration
 * 0077; docs/reports.md "Account rollups").
 *
 * Why: a range that starts at an hour of a closed day (`alignment`'s, which ends at the moment of the
 * call) was read as the kept sums of its whole days (account-ranges.ts, one row per account) plus the
 * start day's rows by hour (account-hours.ts, up to one more per account), summed per account at every
 * call: about 70,000 rows at the reports bench's size. Summed once per start hour they are one narrow
 * row per account, the same for every call of that hour.
 *
 * Why it stays exact: the rows are made from the two in one snapshot, with the range's sums row and the
 * start day's row locked (FOR SHARE: their deletion waits), only while both hold; either going (a month
 * of the sums went, a write of the start day's events dropped its marker, changed ties, the days and
 * ranges kept) takes these with it (foreign keys, cascade); a read takes them only while both still hold.
 */

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** How many spans a client keeps (the latest made): a range ending now needs a new one each hour. */
const KEEP_SPANS = 4;

/** The span a range is read from: its whole days [first, end) and the start day's hours from `k` on. */
function spanOf(range: Range, now = Date.now()) {
  const hours = startHoursDay(range, now);
  const whole = wholeDaysOf(range, now);
  if (!hours || !whole || whole.first !== hours.day + DAY_MS) return null;
  return { first: dateOf(whole.first), end: dateOf(whole.end), k: hours.k, day: hours.day };
}

/**
 * The range's kept span as a read sees it, null when the range has none (no cut start day, or no
 * whole day): `valid`, true while it is made and the range's sums and the start day's rows it was
 * made from still hold (each gate given to `gate`, which may evaluate it once per statement);
 * `part(only)`, each account's events of the span, gated on `valid`.
 */
export function rangeSpan(
  clientId: string,
  range: Range,
  gate: (expr: SQL) => SQL = (e) => e,
): { valid: SQL; part: (only: (col: SQL) => SQL) => SQL } | null {
  const span = spanOf(range);
  const sums = rangeSums(clientId, range);
  if (!span || !sums) return null;
  const key = sql`s.client_id = ${clientId} and s.first_day = ${span.first}::date
    and s.end_day = ${span.end}::date and s.from_hour = ${span.k}`;
  const valid = gate(sql`(exists (select 1 from account_engagement_spans s where ${key})
    and ${sums.valid} and ${hoursValid(clientId, span.day)})`);
  return {
    valid,
    part: (only) => sql`
      select s.company_id, s.impressions, s.clicks, s.views, s.last_at
        from account_engagement_span_rows s
       where ${key} and ${valid} ${only(sql`s.company_id`)}`,
  };
}

/**
 * Sums the range's span per account when it is not kept yet and both its parts hold
 * (`ensureStartHours` and `ensureRangeSums` first). Otherwise leaves it: the read takes the parts.
 */
export async function ensureRangeSpan(db: Db, clientId: string, range: Range): Promise<void> {
  const span = spanOf(range);
  const kept = rangeSpan(clientId, range);
  const sums = rangeSums(clientId, range);
  if (!span || !kept || !sums) return;
  const [have] = rowsOf(await db.execute(sql`select ${kept.valid} as ok`));
  if (have?.ok) return;
  const hourDay = dateOf(span.day);
  await db.transaction(async (tx) => {
    // The two parts, locked against their deletion until the rows are in.
    const [range_] = rowsOf(
      await tx.execute(sql`
        select 1 as n from account_engagement_ranges
         where client_id = ${clientId} and first_day = ${span.first}::date and end_day = ${span.end}::date
           for share`),
    );
    const [day_] = rowsOf(
      await tx.execute(sql`
        select 1 as n from account_engagement_hour_days
         where client_id = ${clientId} and day = ${hourDay}::date for share`),
    );
    if (!range_ || !day_) return;
    const [ok] = rowsOf(
      await tx.execute(sql`select ${sums.valid} and ${hoursValid(clientId, span.day)} as ok`),
    );
    if (!ok?.ok) return;
    const key = sql`${clientId}, ${span.first}::date, ${span.end}::date, ${span.k}`;
    await tx.execute(sql`
      delete from account_engagement_spans
       where client_id = ${clientId} and first_day = ${span.first}::date and end_day = ${span.end}::date
         and from_hour = ${span.k}`);
    await tx.execute(sql`
      insert into account_engagement_spans (client_id, first_day, end_day, from_hour, hour_day)
      values (${key}, ${hourDay}::date)`);
    const i = sql.raw(String(span.k + 1));
    await tx.execute(sql`
      insert into account_engagement_span_rows (client_id, first_day, end_day, from_hour, company_id, impressions, clicks, views, last_at)
      select ${key}, coalesce(g.company_id, h.company_id),
             coalesce(g.impressions, 0) + coalesce(h.impressions[${i}], 0),
             coalesce(g.clicks, 0) + coalesce(h.clicks[${i}], 0),
             coalesce(g.views, 0) + coalesce(h.views[${i}], 0),
             greatest(g.last_at, case when h.last_at >= ${new Date(span.day + span.k * HOUR_MS)} then h.last_at end)
        from (select * from account_engagement_range_rows
               where client_id = ${clientId} and first_day = ${span.first}::date and end_day = ${span.end}::date) g
        full join (select * from account_engagement_hours
                    where client_id = ${clientId} and day = ${hourDay}::date) h on h.company_id = g.company_id
       where coalesce(g.impressions, 0) + coalesce(h.impressions[${i}], 0) + coalesce(g.clicks, 0)
             + coalesce(h.clicks[${i}], 0) + coalesce(g.views, 0) + coalesce(h.views[${i}], 0) > 0`);
    await tx.execute(sql`
      delete from account_engagement_spans
       where client_id = ${clientId} and (first_day, end_day, from_hour) not in (
         select first_day, end_day, from_hour from account_engagement_spans where client_id = ${clientId}
          order by built_at desc, end_day desc, first_day desc, from_hour desc limit ${KEEP_SPANS})`);
  });
}
