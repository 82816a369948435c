import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';

/**
 * Folding old raw engagement events into the daily rollups (decision 0032).
 *
 * A day is folded in two steps, both under the day's advisory lock taken exclusive (the events
 * triggers take it shared, migration 0024), in one transaction per batch:
 * 1. the first batch of a day marks it folded: a valid rollup is kept as it is, otherwise the day is
 *    counted from its raw events now. From then on the rollups are the day's only count (the reports
 *    take a folded marker as valid whatever the partition), and the triggers keep them exact: an event
 *    written, changed or deleted on a folded day adds to or takes from them (migration 0058);
 * 2. each batch deletes up to `batchSize` of the day's raw events with `rally.retention_fold` on,
 *    which tells the delete trigger these are already counted.
 * So a crash loses nothing (a batch commits whole or not at all), a later run continues with what is
 * left, and a second run, or two at once, count nothing twice: counting happens once, when the
 * marker becomes folded, and the deletes do not count.
 */

const DAY_MS = 86_400_000;
const rowsOf = (result: unknown) => (result as { rows: Record<string, unknown>[] }).rows;

/**
 * The first instant kept: events before it are folded. An event is folded once it is `months` months
 * old counted in UTC days: on 2027-03-15 with 25 months, the events of 2025-02-15 and before (the
 * day of the month is clamped: 31 March less one month is the last day of February).
 */
export function foldCutoff(now: Date, months: number): Date {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth() - months;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return new Date(Date.UTC(y, m, Math.min(now.getUTCDate(), lastDay)) + DAY_MS);
}

/** The oldest UTC day with raw events of the client before `cutoff`, or null. */
async function oldestDay(db: Db, clientId: string, cutoff: Date): Promise<string | null> {
  const [row] = rowsOf(
    await db.execute(sql`
      select (occurred_at at time zone 'UTC')::date::text as day
        from engagement_events
       where client_id = ${clientId} and occurred_at < ${cutoff}
       order by occurred_at
       limit 1`),
  );
  return row ? String(row.day) : null;
}

/**
 * One batch: the oldest day before `cutoff` is marked folded (counted if it was not rolled up) and up
 * to `batchSize` of its raw events deleted. Returns the events deleted and the day, or null when the
 * client has no events before `cutoff`.
 */
export async function foldBatch(
  db: Db,
  clientId: string,
  cutoff: Date,
  batchSize: number,
): Promise<{ day: string; deleted: number; counted: boolean } | null> {
  const day = await oldestDay(db, clientId, cutoff);
  if (!day) return null;
  const from = new Date(`${day}T00:00:00Z`);
  const to = new Date(from.getTime() + DAY_MS);
  return db.transaction(async (tx) => {
    // Exclusive: waits for the day's writers in flight; they wait for this batch.
    await tx.execute(
      sql`select pg_advisory_xact_lock(engagement_rollup_key(${clientId}::uuid, ${day}::date))`,
    );
    const [marker] = rowsOf(
      await tx.execute(sql`
        select folded, part is not distinct from engagement_partition_of(day) as valid
          from engagement_rollup_days where client_id = ${clientId} and day = ${day}::date`),
    );
    let counted = false;
    if (!marker?.folded) {
      if (marker?.valid) {
        // Its rollups count exactly its events now (no writer since, or the marker would be gone).
        await tx.execute(sql`
          update engagement_rollup_days set folded = true where client_id = ${clientId} and day = ${day}::date`);
      } else {
        await tx.execute(sql`
          delete from engagement_rollup_days where client_id = ${clientId} and day = ${day}::date`);
        await tx.execute(sql`
          insert into engagement_rollup_days (client_id, day, part, folded)
          values (${clientId}, ${day}::date, engagement_partition_of(${day}::date), true)`);
        await tx.execute(sql`
          insert into engagement_rollups (client_id, day, content_id, type, events)
          select ${clientId}, ${day}::date, e.content_id, e.type, count(*)
            from engagement_events e
           where e.client_id = ${clientId} and e.occurred_at >= ${from} and e.occurred_at < ${to}
           group by 3, 4`);
        counted = true;
      }
    }
    await tx.execute(sql`select set_config('rally.retention_fold', 'on', true)`);
    // A batch is a range of the day by time, deleted straight from the (client_id, occurred_at)
    // index: its end is the (batchSize + 1)-th event's instant, kept as text so no microsecond is
    // lost. Picking ids and deleting by them made the planner join the batch to the client's other
    // events (a hash join over every old event: 0.45 s a batch at 200,000 events, growing with the
    // table), and a generic plan of the same with the day's range took 0.5 s a batch (EXPLAIN ANALYZE).
    const [edge] = rowsOf(
      await tx.execute(sql`
        select occurred_at::text as at from engagement_events
         where client_id = ${clientId} and occurred_at >= ${from} and occurred_at < ${to}
         order by occurred_at offset ${batchSize} limit 1`),
    );
    const deleteRange = async (range: ReturnType<typeof sql>) =>
      Number(
        rowsOf(
          await tx.execute(sql`
            with gone as (
              delete from engagement_events where client_id = ${clientId} and ${range} returning 1
            ) select count(*)::int as n from gone`),
        )[0]?.n ?? 0,
      );
    const upper = edge ? sql`${String(edge.at)}::timestamptz` : sql`${to}`;
    let deleted = await deleteRange(sql`occurred_at >= ${from} and occurred_at < ${upper}`);
    // More than a batch of events at the day's first remaining instant: that instant goes whole.
    if (deleted === 0 && edge) deleted = await deleteRange(sql`occurred_at = ${upper}`);
    await tx.execute(sql`select set_config('rally.retention_fold', 'off', true)`);
    return { day, deleted, counted };
  });
}
