import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import { rowsOf } from './repository.ts';
import type { StageRow, Tx } from './repository.ts';

/**
 * The accounts whose data changed (docs/decisions/0036): the triggers of migration 0064 list them in
 * journey_dirty_accounts; a run between full ones evaluates only those, taking them off the list in
 * the transaction that evaluates them (a run that dies leaves them listed).
 */

const DAY_MS = 86_400_000;

/**
 * Takes up to `limit` listed accounts (account id order, every listing of each) off the list and
 * returns them. The job runs one at a time per journey (its queue policy), so no other run takes them.
 */
export async function takeDirty(tx: Tx, journeyId: string, limit: number): Promise<string[]> {
  return rowsOf<{ account_id: string }>(
    await tx.execute(sql`
with pick as (
  select distinct account_id from journey_dirty_accounts where journey_id = ${journeyId}
  order by account_id limit ${limit}
), gone as (
  delete from journey_dirty_accounts d using pick
  where d.journey_id = ${journeyId} and d.account_id = pick.account_id
  returning d.account_id
)
select distinct account_id::text from gone order by 1`),
  ).map((r) => r.account_id);
}

/**
 * A full run's chunk reads every account of its range as it is now: their listings are done. Done
 * before the chunk is read, so a change committed after it stays listed for the next run.
 */
export async function clearDirtyRange(
  tx: Tx,
  journeyId: string,
  after: string | null,
  upTo: string,
): Promise<void> {
  await tx.execute(sql`delete from journey_dirty_accounts where journey_id = ${journeyId}
    and account_id > coalesce(${after}::uuid, '00000000-0000-0000-0000-000000000000'::uuid)
    and account_id <= ${upTo}::uuid`);
}

/**
 * "Days in stage" comes due with time, not with a write: lists the accounts of the stages before
 * each such rule's stage whose time in stage reached it. For a stage matching "any" rule that is
 * every such account (each of them moves, so none is listed twice); for "all", only those that
 * reached it since the last run (`since`), as the rest were read then and a later change of their
 * other data lists them anyway. One index range per stage ((journey, stage, entered) index).
 */
export async function listDueAccounts(
  tx: Tx,
  journeyId: string,
  stages: StageRow[],
  since: Date | null,
  now: Date,
): Promise<number> {
  const parts: SQL[] = [];
  for (const s of stages) {
    for (const r of s.rules) {
      if (r.kind !== 'days_in_stage_gte') continue;
      const earlier = stages.filter((x) => x.position < s.position).map((x) => sql`${x.id}::uuid`);
      if (!earlier.length) continue;
      const n = Number(r.value ?? 0) * DAY_MS;
      const upTo = new Date(now.getTime() - n).toISOString();
      const from =
        s.match === 'all' && since
          ? sql`and ja.stage_entered_at > ${new Date(since.getTime() - n).toISOString()}::timestamptz`
          : sql``;
      parts.push(sql`select ja.account_id from journey_accounts ja where ja.journey_id = ${journeyId}
        and ja.stage_id in (${sql.join(earlier, sql`, `)}) and ja.stage_entered_at <= ${upTo}::timestamptz ${from}`);
    }
  }
  if (!parts.length) return 0;
  const [row] = rowsOf<{ n: number }>(
    await tx.execute(sql`
with ins as (
  insert into journey_dirty_accounts (journey_id, account_id)
  select distinct ${journeyId}::uuid, account_id from (${sql.join(parts, sql` union all `)}) due
  returning 1
)
select count(*)::int as n from ins`),
  );
  return Number(row?.n ?? 0);
}

/** A full run finished: the next ones read only listed accounts until `fullEveryMs` has passed. */
export async function setFullEvaluated(tx: Tx, journeyId: string, at: Date): Promise<void> {
  await tx.execute(
    sql`update journeys set full_evaluated_at = ${at.toISOString()}::timestamptz where id = ${journeyId}`,
  );
}
