import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { rowsOf } from './report-sql.ts';

/**
 * Report replies computed in the last minute (issue 43, the product owner's decision for
 * dashboard/stats: "may serve results computed in the last 60 s for the same client and range", with
 * the time they were computed). Kept in the database (`report_results`, migration 0067), not in an
 * instance's memory: behind a load balancer every instance then serves the same result with the same
 * "as of", and a result is never older than `REPORT_RESULT_TTL_MS` on any instance, with or without
 * Redis (decision 0021's caches need Redis to be shared; this one needs none). A read is one
 * primary-key probe; the clock is the database's, one for all instances.
 */
export const REPORT_RESULT_TTL_MS = 60_000;

/**
 * The stored result of `report` for `key` (the client's request as asked) when it was computed within
 * the last `REPORT_RESULT_TTL_MS`; else computes it, stores it and returns it. `asOf` is the moment
 * the computation started (the database's clock), so the result holds at least everything before it.
 * Two instances missing at once both compute; the later write wins, and either is a fresh result.
 */
export async function recentResult<T>(
  db: Db,
  clientId: string,
  report: string,
  key: string,
  compute: () => Promise<T>,
): Promise<{ result: T; asOf: Date }> {
  const ttl = sql`${`${REPORT_RESULT_TTL_MS} milliseconds`}::interval`;
  const [found] = rowsOf(
    await db.execute(sql`
      select now() as now, r.body, r.computed_at
        from (select 1) one
        left join report_results r on r.client_id = ${clientId} and r.report = ${report} and r.key = ${key}
         and r.computed_at > now() - ${ttl}`),
  );
  if (found?.body !== null && found?.body !== undefined)
    return { result: found.body as T, asOf: new Date(found.computed_at as string | Date) };
  if (!found) throw new Error('report_results: the look-up returned no row');
  const asOf = new Date(found.now as string | Date);
  const result = await compute();
  // The client's expired results go as a new one is stored: the table holds the last minute's only.
  await db.execute(sql`
    delete from report_results where client_id = ${clientId} and computed_at <= now() - ${ttl}`);
  await db.execute(sql`
    insert into report_results (client_id, report, key, computed_at, body)
    values (${clientId}, ${report}, ${key}, ${asOf}, ${JSON.stringify(result)}::jsonb)
    on conflict (client_id, report, key) do update set computed_at = excluded.computed_at, body = excluded.body
     where report_results.computed_at < excluded.computed_at`);
  return { result, asOf };
}
