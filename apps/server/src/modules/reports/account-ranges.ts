import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { rowsOf } from './report-sql.ts';
import type { Range } from './report-sql.ts';
import { dateArray, dateOf, monthCountParts, monthSpansOf, monthValid } from './account-months.ts';
import { wholeDaysOf } from './rollups.ts';

/**
 * A range's whole days summed per account, kept (migration 0075; docs/reports.md "Account rollups").
 *
 * Why: a range's whole days are read from the month rollups as one part per month and account (the
 * start month's cumulative arrays, the narrow totals of the others): for `alignment`'s 90 days at the
 * reports bench's size about 180,000 rows summed per account at every call, and the start month's
 * wide rows. The same days summed once per account are one narrow row each, read in key order. A
 * range ending now keeps the same whole days until midnight (UTC), so every call of the day after
 * the first reads the sums.
 *
 * Why it stays exact: the sums are made from the month rollups in one snapshot, only while every month
 * they read is counted through the range's last whole day and valid, with those months' rows locked
 * (FOR SHARE: a count, a recount or a deletion of them waits); a month deleted (a write to one of its
 * days, changed ties of many accounts) deletes the sums over it (trigger, migration 0075); a recount of
 * some accounts deletes the client's sums (`forgetRangeSums`); a read takes them only while every month
 * they cover is still valid (a detached or dropped partition), else reads the months as before.
 */

/** How many ranges' sums a client keeps (the latest made). */
const KEEP_RANGES = 4;

/** The whole days of a range the sums are kept for, as dates; null when none. */
function sumDays(range: Range, now = Date.now()): { first: string; end: string } | null {
  const whole = wholeDaysOf(range, now);
  return whole ? { first: dateOf(whole.first), end: dateOf(whole.end) } : null;
}

/**
 * The range's kept sums as a read sees them, null when it has no whole day: `valid`, true while they
 * are made and every month they cover is still valid; `part(only)`, each account's whole days from
 * them, gated on `valid`.
 */
export function rangeSums(
  clientId: string,
  range: Range,
  // Where the validity is evaluated (account-rollups.ts `accountEngagementIn`: once per statement).
  gate: (expr: SQL) => SQL = (e) => e,
): { valid: SQL; part: (only: (col: SQL) => SQL) => SQL } | null {
  const days = sumDays(range);
  if (!days) return null;
  const key = sql`g.client_id = ${clientId} and g.first_day = ${days.first}::date and g.end_day = ${days.end}::date`;
  const months = monthSpansOf(range).map((s) => monthValid(clientId, s.month, s.hi));
  const valid = gate(sql`(exists (select 1 from account_engagement_ranges g where ${key})
    and ${sql.join(months, sql` and `)})`);
  return {
    valid,
    part: (only) => sql`
      select g.company_id, g.impressions::int, g.clicks::int, g.views::int, g.last_at
        from account_engagement_range_rows g
       where ${key} and ${valid} ${only(sql`g.company_id`)}`,
  };
}

/**
 * Sums the range's whole days per account when they are not kept yet and every month they cover is
 * counted and valid (`ensureAccountMonths` first). Otherwise leaves them: the read takes the months.
 */
export async function ensureRangeSums(db: Db, clientId: string, range: Range): Promise<void> {
  const days = sumDays(range);
  const sums = rangeSums(clientId, range);
  if (!days || !sums) return;
  const [have] = rowsOf(await db.execute(sql`select ${sums.valid} as ok`));
  if (have?.ok) return;
  const spans = monthSpansOf(range);
  await db.transaction(async (tx) => {
    // The months read, locked against a count, a recount or a deletion until the sums are in.
    const locked = rowsOf(
      await tx.execute(sql`
        select month from account_engagement_months
         where client_id = ${clientId} and month = any(${dateArray(spans.map((s) => s.month))})
         order by month for share`),
    );
    if (locked.length !== spans.length) return;
    const [ok] = rowsOf(
      await tx.execute(
        sql`select ${sql.join(
          spans.map((s) => monthValid(clientId, s.month, s.hi)),
          sql` and `,
        )} as ok`,
      ),
    );
    if (!ok?.ok) return;
    await tx.execute(sql`
      delete from account_engagement_ranges
       where client_id = ${clientId} and first_day = ${days.first}::date and end_day = ${days.end}::date`);
    await tx.execute(sql`
      insert into account_engagement_ranges (client_id, first_day, end_day)
      values (${clientId}, ${days.first}::date, ${days.end}::date)`);
    const parts = spans.flatMap((s) => monthCountParts(clientId, s, () => sql``));
    await tx.execute(sql`
      insert into account_engagement_range_rows (client_id, first_day, end_day, company_id, impressions, clicks, views, last_at)
      select ${clientId}, ${days.first}::date, ${days.end}::date, company_id, sum(impressions), sum(clicks),
             sum(views), max(last_at)
        from (${sql.join(parts, sql` union all `)}) p
       group by company_id
      having sum(impressions) + sum(clicks) + sum(views) > 0`);
    await tx.execute(sql`
      delete from account_engagement_ranges
       where client_id = ${clientId} and (first_day, end_day) not in (
         select first_day, end_day from account_engagement_ranges where client_id = ${clientId}
          order by built_at desc, end_day desc, first_day desc limit ${KEEP_RANGES})`);
  });
}

/** After some accounts were counted again in the months (account-rollups.ts `forgetAccounts`). */
export async function forgetRangeSums(db: Db, clientId: string): Promise<void> {
  await db.execute(sql`delete from account_engagement_ranges where client_id = ${clientId}`);
}
