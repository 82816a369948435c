import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { mainCurrency } from '../reports/repository.ts';
import { num, rowsOf } from '../reports/report-sql.ts';
import { baseCtes, meetingJoin, opportunityRows, opportunityTotals, windowOf } from './lift-sql.ts';

/**
 * The lift report's reads (issue 45; docs/reports.md "Lift"): the computation from the facts at read
 * time (what lift-sql.ts counts), for a window other than the stored one (store.ts) and the export;
 * the holdout settings.
 */

export type LiftScope =
  { kind: 'client' } | { kind: 'cadence'; cadenceId: number } | { kind: 'cohort'; cohortId: string };

export type GroupSums = {
  targets: number;
  meetings: number;
  withOpportunity: number;
  opportunities: number;
  pipeline: { sum: number; sumSquares: number };
  won: { sum: number; sumSquares: number };
  superprospects: number;
};

export type LiftSums = { exposed: GroupSums; heldOut: GroupSums; currency: string; heldOutShare: number };

const emptyGroup = (): GroupSums => ({
  targets: 0,
  meetings: 0,
  withOpportunity: 0,
  opportunities: 0,
  pipeline: { sum: 0, sumSquares: 0 },
  won: { sum: 0, sumSquares: 0 },
  superprospects: 0,
});

/** The cadence ids a scope covers, as a condition on `t`; null when the scope's id is not the client's. */
export async function scopeCondition(db: Db, clientId: string, scope: LiftScope): Promise<SQL | null> {
  if (scope.kind === 'client') return sql`true`;
  if (scope.kind === 'cadence') {
    const found = rowsOf(
      await db.execute(sql`select 1 from cadences where id = ${scope.cadenceId} and client_id = ${clientId}`),
    );
    return found.length ? sql`t.cadence_id = ${scope.cadenceId}` : null;
  }
  const row = rowsOf(
    await db.execute(
      sql`select cadence_id from cohorts where id = ${scope.cohortId} and client_id = ${clientId}`,
    ),
  )[0];
  return row ? sql`t.cadence_id = ${num(row.cadence_id)}` : null;
}

export async function liftSums(
  db: Db,
  clientId: string,
  scope: LiftScope,
  windowDays: number,
): Promise<LiftSums | null> {
  const where = await scopeCondition(db, clientId, scope);
  if (!where) return null;
  const currency = await mainCurrency(db, clientId);
  const win = windowOf(windowDays);
  // Each part is aggregated by group on its own and the two-row results joined: no join of target
  // rows to target rows, whose plan (with no statistics) could turn quadratic.
  const rows = rowsOf(
    await db.execute(sql`
      with ${baseCtes(clientId, where)},
      met as (select distinct tg.id, tg.holdout_group from tg ${meetingJoin(win)}),
      opp as (
        select x.id, x.holdout_group, ${opportunityTotals(currency)}
          from (${opportunityRows(win, sql`tg`)}) x
         group by x.id, x.holdout_group
      )
      select g.holdout_group, g.targets, g.supers,
        coalesce(m.meetings, 0) as meetings,
        coalesce(o.with_opportunity, 0) as with_opportunity,
        coalesce(o.opportunities, 0) as opportunities,
        coalesce(o.pipeline, 0) as pipeline, coalesce(o.pipeline_squares, 0) as pipeline_squares,
        coalesce(o.won, 0) as won, coalesce(o.won_squares, 0) as won_squares
      from (
        select tg.holdout_group, count(*)::int as targets,
          count(*) filter (where tg.super_date is not null and tg.super_date < tg.entered + ${win})::int as supers
        from tg group by tg.holdout_group
      ) g
      left join (select holdout_group, count(*)::int as meetings from met group by holdout_group) m
        on m.holdout_group = g.holdout_group
      left join (
        select holdout_group,
          count(*) filter (where created > 0)::int as with_opportunity,
          sum(created)::float8 as opportunities,
          sum(pipeline)::float8 / 100 as pipeline,
          sum((pipeline::float8 / 100) ^ 2)::float8 as pipeline_squares,
          sum(won)::float8 / 100 as won,
          sum((won::float8 / 100) ^ 2)::float8 as won_squares
        from opp group by holdout_group
      ) o on o.holdout_group = g.holdout_group`),
  );
  return toLiftSums(rows, currency);
}

/**
 * A group's row per `holdout_group` (targets, meetings, with_opportunity, opportunities, supers;
 * pipeline and won with their `_squares`, in the currency's units) as the report's sums.
 */
export function toLiftSums(rows: Record<string, unknown>[], currency: string): LiftSums {
  const out = { exposed: emptyGroup(), heldOut: emptyGroup() };
  for (const r of rows) {
    const g = r.holdout_group === 'held_out' ? out.heldOut : out.exposed;
    Object.assign(g, {
      targets: num(r.targets),
      meetings: num(r.meetings),
      withOpportunity: num(r.with_opportunity),
      opportunities: num(r.opportunities),
      pipeline: { sum: num(r.pipeline), sumSquares: num(r.pipeline_squares) },
      won: { sum: num(r.won), sumSquares: num(r.won_squares) },
      superprospects: num(r.supers),
    });
  }
  const total = out.exposed.targets + out.heldOut.targets;
  return { ...out, currency, heldOutShare: total ? out.heldOut.targets / total : 0 };
}

export type AssignmentRow = {
  target_id: string;
  prospect_name: string;
  email: string;
  cadence: string;
  group: 'exposed' | 'held_out';
  entered_at: string;
  meeting: boolean;
  opportunities: number;
  pipeline: number;
  won: number;
};

/** Every assigned target of the scope with its outcomes, in pages by id (the export). */
export async function* assignmentPages(
  db: Db,
  clientId: string,
  scope: LiftScope,
  windowDays: number,
  pageSize = 5_000,
): AsyncGenerator<AssignmentRow[]> {
  const where = await scopeCondition(db, clientId, scope);
  if (!where) return;
  const currency = await mainCurrency(db, clientId);
  const win = windowOf(windowDays);
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    // A page of targets, each one's outcomes by index lookups from it: linear in the page.
    const rows = rowsOf(
      await db.execute(sql`
        with ${baseCtes(clientId, where, { after, limit: pageSize })}
        select tg.id, tg.holdout_group, tg.entered,
          exists (select 1 from (select tg.prospect_id, tg.entered) tg ${meetingJoin(win)}) as met,
          o.created as opportunities, o.pipeline, o.won,
          trim(pr.first_name || ' ' || pr.last_name) as name, coalesce(pr.email, '') as email,
          c.name as cadence
        from tg
        join prospects pr on pr.id = tg.prospect_id
        join cadences c on c.id = tg.cadence_id
        cross join lateral (
          select ${opportunityTotals(currency)}
            from (${opportunityRows(win, sql`(select tg.id, tg.holdout_group, tg.prospect_id, tg.entered) tg`)}) x
        ) o
        order by tg.id`),
    );
    if (!rows.length) return;
    yield rows.map(toAssignmentRow);
    after = String(rows[rows.length - 1]?.id);
    if (rows.length < pageSize) return;
  }
}

/** An export row from a query's `id, holdout_group, entered, met, opportunities, pipeline, won` (cents), `name, email, cadence`. */
export function toAssignmentRow(r: Record<string, unknown>): AssignmentRow {
  return {
    target_id: String(r.id),
    prospect_name: String(r.name),
    email: String(r.email),
    cadence: String(r.cadence),
    group: r.holdout_group === 'held_out' ? 'held_out' : 'exposed',
    entered_at: new Date(r.entered as string).toISOString(),
    meeting: r.met === true,
    opportunities: num(r.opportunities),
    pipeline: num(r.pipeline) / 100,
    won: num(r.won) / 100,
  };
}

/** The client's attribution window (client settings), the lift report's default window. */
export async function attributionWindowDays(db: Db, clientId: string): Promise<number> {
  const row = rowsOf(
    await db.execute(sql`select attribution_window_days from client_settings where client_id = ${clientId}`),
  )[0];
  return row ? num(row.attribution_window_days) : 90;
}

/** Cadences and cohorts with their holdout shares and assigned targets (the settings list), or one. */
export async function holdoutList(db: Db, clientId: string, cadenceId?: number) {
  return rowsOf(
    await db.execute(sql`
      select c.id, c.name, c.kind, c.holdout_percent, co.id as cohort_id, co.name as cohort_name,
        (select count(*) from targets t where t.client_id = ${clientId} and t.cadence_id = c.id
            and t.holdout_group = 'exposed')::int as exposed,
        (select count(*) from targets t where t.client_id = ${clientId} and t.cadence_id = c.id
            and t.holdout_group = 'held_out')::int as held_out
      from cadences c left join cohorts co on co.cadence_id = c.id
      where c.client_id = ${clientId}
        and ${cadenceId === undefined ? sql`c.status <> 'finished'` : sql`c.id = ${cadenceId}`}
      order by c.kind, coalesce(co.name, c.name), c.id`),
  );
}

/** Sets a cadence's share; false when the cadence is not the client's. */
export async function setHoldoutPercent(
  db: Db,
  clientId: string,
  cadenceId: number,
  percent: number,
): Promise<boolean> {
  const rows = rowsOf(
    await db.execute(sql`
      update cadences set holdout_percent = ${percent}, updated_at = now()
       where id = ${cadenceId} and client_id = ${clientId} returning id`),
  );
  return rows.length > 0;
}
