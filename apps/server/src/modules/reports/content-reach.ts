import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { Range } from './report-sql.ts';

/**
 * Each ad's targets reached in a range (docs/reports.md "Targets reached", migration 0072).
 *
 * Why: the distinct targets of an ad over a range are no sum of days, and counting them from the raw
 * events read every event of the range (2.5 million at the reports bench's size, 1.3 s). Each (ad,
 * target) pair's last event is kept instead (`content_target_last`), with how many pairs have their
 * last event on each UTC day (`content_reach_days`), both by the events' own triggers in the writer's
 * transaction.
 *
 * Why it is exact: a pair reached in [from, to) has its last event at or after `from`; those whose
 * last event is at or after `to` are out unless they have an event in the range. The pairs with their
 * last event at or after `from` are the days' counts from `from`'s day on, less the pairs whose last
 * event is in that day before `from` (or the days after it plus those in the day from `from` on: the
 * smaller side of the cut day, read raw and each pair probed by its key). The pairs seen since `to`
 * are the events at or after `to`, read raw: few when the range ends near now, so this way is taken
 * only then; an older end counts the raw events as before.
 */

const DAY_MS = 86_400_000;
/** A range ending this close to now (or later) reads the kept pairs; an older end, the raw events. */
const RECENT_END_MS = 3_600_000;

const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * A CTE `reached (content_id, targets)`: the distinct targets of the client's events of each ad in the
 * range (ads without any absent). `contentId` keeps one ad's. Exact in the statement's snapshot.
 */
export function reachedTargets(clientId: string, range: Range, contentId?: string, now = Date.now()): SQL {
  const only = (alias: string) => (contentId ? sql`and ${sql.raw(alias)}.content_id = ${contentId}` : sql``);
  if (range.to.getTime() < now - RECENT_END_MS)
    return sql`reached as (
      select e.content_id, count(distinct e.target_id) as targets
        from engagement_events e
       where e.client_id = ${clientId} and e.content_id is not null
         and e.occurred_at >= ${range.from} and e.occurred_at < ${range.to} ${only('e')}
       group by e.content_id
    )`;
  const from = range.from.getTime();
  const dayStart = Math.floor(from / DAY_MS) * DAY_MS;
  const cut = from - dayStart;
  // The cut day's smaller side, raw: [day start, from) taken away, or [from, day end) added to the
  // days after. Either way its pairs whose last event is before the side's end. Each pair and each
  // pair seen since `to` is probed by its key (lateral, `offset 0`): a join planned on a misestimate
  // would hash the 7.5 million pairs, or the range's events, at the bench's size.
  const firstHalf = cut <= DAY_MS / 2;
  const days = dateOf(firstHalf ? dayStart : dayStart + DAY_MS);
  const lo = new Date(firstHalf ? dayStart : from);
  const hi = new Date(firstHalf ? from : dayStart + DAY_MS);
  const sign = firstHalf ? -1 : 1;
  const side =
    cut === 0
      ? sql``
      : sql`union all
      select p.content_id, ${sql.raw(String(sign))} * count(*)
        from (select distinct e.content_id, e.target_id from engagement_events e
               where e.client_id = ${clientId} and e.content_id is not null
                 and e.occurred_at >= ${lo} and e.occurred_at < ${hi} ${only('e')}) p
        cross join lateral (
          select l.last_at from content_target_last l
           where l.client_id = ${clientId} and l.content_id = p.content_id and l.target_id = p.target_id offset 0
        ) l
       where l.last_at < ${hi}
       group by p.content_id`;
  return sql`reached as (
    select x.content_id, sum(x.n) as targets from (
      select r.content_id, r.targets::bigint as n from content_reach_days r
       where r.client_id = ${clientId} and r.day >= ${days}::date ${only('r')}
      ${side}
      union all
      -- Seen since the range's end, and not in it.
      select p.content_id, -count(*)
        from (select distinct e.content_id, e.target_id from engagement_events e
               where e.client_id = ${clientId} and e.content_id is not null
                 and e.occurred_at >= ${range.to} ${only('e')}) p
        cross join lateral (
          select count(*) as n from (
            select 1 from engagement_events x
             where x.target_id = p.target_id and x.client_id = ${clientId} and x.content_id = p.content_id
               and x.occurred_at >= ${range.from} and x.occurred_at < ${range.to}
             limit 1) y
        ) seen
       where seen.n = 0
       group by p.content_id
    ) x group by x.content_id
    having sum(x.n) > 0
  )`;
}
