import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { Range } from './report-sql.ts';
import { wholeDaysOf } from './rollups.ts';

/**
 * The months of the account rollups (account-rollups.ts, migration 0030) as their readers and the
 * kept range sums (account-ranges.ts) see them: a range's whole days split by month, a month's
 * validity in the statement's snapshot, and each month's counts per account over its span.
 */

export const DAY_MS = 86_400_000;
export const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const monthOf = (ms: number) => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
};
export const nextMonth = (ms: number) => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
};
export const dayOfMonth = (ms: number) => new Date(ms).getUTCDate();
export const dateArray = (dates: string[]) => sql`${`{${dates.join(',')}}`}::date[]`;

/** The months a range's whole days touch, as [month start, covered end) in ms; empty when none. */
export function monthSpans(range: Range, now = Date.now()): { month: number; lo: number; hi: number }[] {
  const whole = wholeDaysOf(range, now);
  if (!whole) return [];
  const spans: { month: number; lo: number; hi: number }[] = [];
  for (let m = monthOf(whole.first); m < whole.end; m = nextMonth(m))
    spans.push({ month: m, lo: Math.max(m, whole.first), hi: Math.min(nextMonth(m), whole.end) });
  return spans;
}

/**
 * A month that counts the days [month, hi) (`through` compared to `hi` by `op`), all with a valid
 * daily marker.
 */
export function monthValid(clientId: string, month: string, hi: string, op: '>=' | '=' | '>' = '>='): SQL {
  return sql`exists (
      select 1 from account_engagement_months am
       where am.client_id = ${clientId} and am.month = ${month}::date and am.through ${sql.raw(op)} ${hi}::date
         and (select count(*) from engagement_rollup_days d
               where d.client_id = ${clientId} and d.day >= ${month}::date and d.day < ${hi}::date
                 and (d.folded or d.part is not distinct from engagement_partition_of(d.day)))
             = ${hi}::date - ${month}::date)`;
}

/** Where a statement's validity gate is evaluated: written out (the default) or `gateRow`'s. */
export type Gate = (expr: SQL, key?: string) => SQL;

/**
 * Validity gates evaluated once per statement: `gate(expr, key)` gives a reference to the gate's
 * column in a one-row CTE (`cte()`, to be put before any branch that reads it), the same one for
 * the same key. A gate written out in each branch that tests it is evaluated once per branch (an
 * init plan each: a month's is a count of its markers, about 0.5 ms at the reports bench's size).
 */
export function gateRow(name: string): { gate: Gate; cte: () => SQL } {
  const exprs: SQL[] = [];
  const refs = new Map<string, SQL>();
  const gate: Gate = (expr, key) => {
    const known = key === undefined ? undefined : refs.get(key);
    if (known) return known;
    exprs.push(expr);
    const ref = sql.raw(`(select g${exprs.length - 1} from ${name})`);
    if (key !== undefined) refs.set(key, ref);
    return ref;
  };
  const cte = () =>
    sql`${sql.raw(name)} as materialized (select ${
      exprs.length
        ? sql.join(
            exprs.map((g, i) => sql`${g} as ${sql.raw(`g${i}`)}`),
            sql`, `,
          )
        : sql`true as g`
    })`;
  return { gate, cte };
}

/** `monthValid` through a gate, one per month, span end and comparison. */
export const monthGate = (
  gate: Gate,
  clientId: string,
  month: string,
  hi: string,
  op: '>=' | '=' | '>' = '>=',
) => gate(monthValid(clientId, month, hi, op), `month ${month} ${hi} ${op}`);

/** A month of a range as its readers see it: the month and the end of its span as dates, the span's
 * start in ms, and the first and last day of the month it covers. */
export type MonthSpan = { month: string; hi: string; lo: number; a: number; b: number };

/** A range's months as `MonthSpan`s. */
export function monthSpansOf(range: Range): MonthSpan[] {
  return monthSpans(range).map((s) => ({
    month: dateOf(s.month),
    hi: dateOf(s.hi),
    lo: s.lo,
    a: dayOfMonth(s.lo),
    b: dayOfMonth(s.hi - DAY_MS),
  }));
}

/**
 * A month's counts per account over its span, each branch gated on the month's validity: rows of
 * (company_id, impressions, clicks, views, last_at). `only` keeps some accounts.
 */
export function monthCountParts(
  clientId: string,
  span: MonthSpan,
  only: (col: SQL) => SQL,
  // Read only while this holds too (the kept range sums do not: account-ranges.ts).
  also_?: SQL,
  // Where each month's validity is evaluated (account-rollups.ts `accountEngagementIn`: once).
  gate: Gate = (e) => e,
): SQL[] {
  const { month, hi, lo, a, b } = span;
  const also = also_ ? sql`and ${also_}` : sql``;
  const before = (col: string) => (a > 1 ? sql`r.${sql.raw(col)}[${a - 1}]` : sql`0`);
  const out: SQL[] = [];
  // Days from the month's first to its last counted: the narrow totals. Otherwise two subscripts.
  if (a === 1)
    out.push(sql`
      select r.company_id, r.impressions, r.clicks, r.views, r.last_at
        from account_engagement r
       where r.client_id = ${clientId} and r.month = ${month}::date
         and ${monthGate(gate, clientId, month, hi, '=')} ${also} ${only(sql`r.company_id`)}`);
  out.push(sql`
    select r.company_id, r.impressions[${b}] - ${before('impressions')} as impressions,
           r.clicks[${b}] - ${before('clicks')} as clicks, r.views[${b}] - ${before('views')} as views,
           case when r.last_at[${b}] >= ${new Date(lo)} then r.last_at[${b}] end as last_at
      from account_engagement_days r
     where r.client_id = ${clientId} and r.month = ${month}::date
       and ${monthGate(gate, clientId, month, hi, a === 1 ? '>' : '>=')} ${also} ${only(sql`r.company_id`)}`);
  return out;
}
