import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { ATTRIBUTION_WINDOW_DEFAULT_DAYS } from '@rally/shared/schemas/reports';
import { mainCurrency } from '../reports/repository.ts';
import { rowsOf } from '../reports/report-sql.ts';
import { meetingJoin, meetingTypes, opportunityRows, opportunityTotals, windowOf } from './lift-sql.ts';
import { scopeCondition, toAssignmentRow, toLiftSums } from './repository.ts';
import type { AssignmentRow, LiftScope, LiftSums } from './repository.ts';

/**
 * Stored lift outcomes (docs/reports.md "Stored outcomes"; migration 0068). Counting the outcomes of
 * every assigned target at read time joined a million targets to their contacts, activities, ties
 * and opportunities: seconds per report at the reports bench's size. So each target's outcomes in
 * the client's window (`lift_outcomes`) and their sums per cadence and group (`lift_sums`) are kept,
 * and the report reads the sums. Triggers write to `lift_dirty` what a write may have changed (a
 * target, a prospect's targets, the targets tied to a company, or all); `refreshLift` computes those
 * targets again before a report reads and moves the sums by the difference. The outcomes depend on
 * the facts only, not on the time of the read, so a target whose window is still open needs nothing
 * more: what happens later in its window arrives as a write, whose marker names it.
 */

/** Targets computed per statement: each stays well under a statement timeout. */
const CHUNK = 2_000;
/** Targets to compute again from which one pass over the whole client is cheaper than lookups. */
const ALL_FROM = 50_000;
/** Rows computed in one pass past which the table's statistics are taken again. */
const ANALYZE_AFTER = 10_000;

type Marker = { kind: string; ref: string | null };

/**
 * The outcome columns of `lift_outcomes`, from `tg` (the targets to compute, with `entered` and
 * `super_date`): the target's row, its meetings and its opportunities are aggregated per target on
 * their own and put together by a group-by, not joined (a join of target rows to target rows could
 * plan quadratic without statistics, as on PGlite).
 */
function outcomes(win: SQL, currency: string): SQL {
  return sql`
    met as (select distinct tg.id from tg ${meetingJoin(win)}),
    opp as (
      select x.id, ${opportunityTotals(currency)}
        from (${opportunityRows(win, sql`tg`)}) x
       group by x.id
    ),
    parts as (
      select tg.id, tg.cadence_id, tg.holdout_group, tg.entered,
             tg.super_date is not null and tg.super_date < tg.entered + ${win} as super,
             false as met, 0::bigint as created, 0::numeric as pipeline, 0::numeric as won
        from tg
      union all select id, null, null, null, false, true, 0, 0, 0 from met
      union all select id, null, null, null, false, false, created, pipeline, won from opp
    ),
    per as (
      select id, max(cadence_id) as cadence_id, max(holdout_group) as holdout_group,
             max(entered) as entered, bool_or(super) as super, bool_or(met) as met,
             sum(created)::int as created, sum(pipeline)::bigint as pipeline, sum(won)::bigint as won
        from parts group by id
    )`;
}

const INSERT_OUTCOMES = sql`insert into lift_outcomes (target_id, client_id, cadence_id, holdout_group,
  entered_at, met, super, opportunities, pipeline_cents, won_cents)`;

/** Sums of outcome rows (`from`, aliased o) per client, cadence and group, negated when `sign` is -1. */
function sumsOf(from: SQL, sign: 1 | -1): SQL {
  const s = sql.raw(sign < 0 ? '-' : '');
  return sql`
    select o.client_id, o.cadence_id, o.holdout_group, ${s}count(*), ${s}count(*) filter (where o.met),
           ${s}count(*) filter (where o.opportunities > 0), ${s}coalesce(sum(o.opportunities), 0),
           ${s}count(*) filter (where o.super), ${s}coalesce(sum(o.pipeline_cents::numeric), 0),
           ${s}coalesce(sum(o.pipeline_cents::numeric * o.pipeline_cents), 0),
           ${s}coalesce(sum(o.won_cents::numeric), 0), ${s}coalesce(sum(o.won_cents::numeric * o.won_cents), 0)
      from ${from} group by o.client_id, o.cadence_id, o.holdout_group`;
}

const SUMS_COLUMNS = sql`(client_id, cadence_id, holdout_group, targets, meetings, with_opportunity,
  opportunities, supers, pipeline_cents, pipeline_squares, won_cents, won_squares)`;

/** Adds rows of `sumsOf` to the stored sums. */
const ADD_SUMS = sql`on conflict (client_id, cadence_id, holdout_group) do update set
  targets = lift_sums.targets + excluded.targets, meetings = lift_sums.meetings + excluded.meetings,
  with_opportunity = lift_sums.with_opportunity + excluded.with_opportunity,
  opportunities = lift_sums.opportunities + excluded.opportunities, supers = lift_sums.supers + excluded.supers,
  pipeline_cents = lift_sums.pipeline_cents + excluded.pipeline_cents,
  pipeline_squares = lift_sums.pipeline_squares + excluded.pipeline_squares,
  won_cents = lift_sums.won_cents + excluded.won_cents, won_squares = lift_sums.won_squares + excluded.won_squares`;

/**
 * Brings the client's stored outcomes up to date with its facts for `windowDays` (the client's
 * attribution window); returns the main currency they are in. A no-op read when nothing changed;
 * otherwise one transaction, serialised per client by an advisory lock.
 */
export async function refreshLift(db: Db, clientId: string, windowDays: number): Promise<string> {
  const [probe] = rowsOf(
    await db.execute(sql`
      select s.window_days, s.currency,
             exists(select 1 from lift_dirty d where d.client_id = ${clientId}) as dirty
        from (select 1) one left join lift_state s on s.client_id = ${clientId}`),
  );
  // Every write of an opportunity marks its client (migration 0070): with no marker, the main
  // currency is the one stored, and the client's opportunities need not be counted by currency.
  if (probe && Number(probe.window_days) === windowDays && probe.currency !== null && !probe.dirty)
    return String(probe.currency);
  const currency = await mainCurrency(db, clientId);
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('rally.lift'), hashtext(${clientId}))`);
    const [state] = rowsOf(
      await tx.execute(sql`select window_days, currency from lift_state where client_id = ${clientId}`),
    );
    // Taken by deleting: a marker a concurrent write commits later stays for the next refresh.
    const dirty = rowsOf(
      await tx.execute(sql`delete from lift_dirty where client_id = ${clientId} returning kind, ref`),
    ) as Marker[];
    await tx.execute(sql`
      insert into lift_state (client_id, window_days, currency) values (${clientId}, ${windowDays}, ${currency})
      on conflict (client_id) do update set window_days = excluded.window_days, currency = excluded.currency,
        refreshed_at = now()`);
    const changedBasis = !state || Number(state.window_days) !== windowDays || state.currency !== currency;
    if (changedBasis || dirty.some((d) => d.kind === 'all')) {
      await computeAll(tx, clientId, windowDays, currency);
      return;
    }
    const ids = await targetsNamed(tx, clientId, dirty);
    if (ids.length >= ALL_FROM) await computeAll(tx, clientId, windowDays, currency);
    else
      for (let i = 0; i < ids.length; i += CHUNK)
        await computeTargets(tx, clientId, windowDays, currency, ids.slice(i, i + CHUNK));
  });
  return currency;
}

/** The targets the markers name: themselves, a prospect's assigned targets, those tied to a company. */
async function targetsNamed(db: Db, clientId: string, dirty: Marker[]): Promise<string[]> {
  const refs = (kind: string) => [
    ...new Set(dirty.flatMap((d) => (d.kind === kind && d.ref ? [d.ref] : []))),
  ];
  const ids = new Set(refs('target'));
  const prospects = refs('prospect');
  const companies = refs('company');
  if (prospects.length || companies.length) {
    const found = rowsOf(
      await db.execute(sql`
        select t.id from unnest(${sql.param(prospects)}::uuid[]) as x(id)
          join targets t on t.prospect_id = x.id
         where t.client_id = ${clientId} and t.holdout_group is not null
        union
        select t.id from unnest(${sql.param(companies)}::uuid[]) as x(id)
          join prospect_account_ties pt on pt.client_id = ${clientId} and pt.company_id = x.id
          join targets t on t.prospect_id = pt.prospect_id
         where t.client_id = ${clientId} and t.holdout_group is not null`),
    );
    for (const r of found) ids.add(String(r.id));
  }
  return [...ids];
}

/**
 * Computes the given targets again: their stored rows are taken out of the sums and deleted, then
 * those still assigned in the client are computed, stored and added (by whichever client a row
 * was stored for, should a target have moved).
 */
async function computeTargets(db: Db, clientId: string, windowDays: number, currency: string, ids: string[]) {
  const win = windowOf(windowDays);
  await db.execute(sql`
    with changed as (
      delete from lift_outcomes o using unnest(${sql.param(ids)}::uuid[]) as x(id)
       where o.target_id = x.id
      returning o.*
    )
    insert into lift_sums ${SUMS_COLUMNS} ${sumsOf(sql`changed o`, -1)}
    ${ADD_SUMS}`);
  await db.execute(sql`
    with ${meetingTypes(clientId)}, tg as materialized (
      select t.id, t.prospect_id, t.cadence_id, t.holdout_group, t.created_at as entered, t.super_date
        from unnest(${sql.param(ids)}::uuid[]) as x(id)
        join targets t on t.id = x.id
       where t.client_id = ${clientId} and t.holdout_group is not null
    ), ${outcomes(win, currency)},
    changed as (
      ${INSERT_OUTCOMES}
      select id, ${clientId}, cadence_id, holdout_group, entered, met, super, created, pipeline, won from per
      on conflict (target_id) do nothing
      returning *
    )
    insert into lift_sums ${SUMS_COLUMNS} ${sumsOf(sql`changed o`, 1)}
    ${ADD_SUMS}`);
}

/** Computes every assigned target of the client in one pass, and its sums from them. */
async function computeAll(db: Db, clientId: string, windowDays: number, currency: string) {
  const win = windowOf(windowDays);
  await db.execute(sql`delete from lift_outcomes where client_id = ${clientId}`);
  await db.execute(sql`delete from lift_sums where client_id = ${clientId}`);
  await db.execute(sql`set local work_mem = '64MB'`);
  const made = await db.execute(sql`
    with ${meetingTypes(clientId)}, tg as materialized (
      select t.id, t.prospect_id, t.cadence_id, t.holdout_group, t.created_at as entered, t.super_date
        from targets t
       where t.client_id = ${clientId} and t.holdout_group is not null
    ), ${outcomes(win, currency)}
    ${INSERT_OUTCOMES}
    select id, ${clientId}, cadence_id, holdout_group, entered, met, super, created, pipeline, won from per
    on conflict (target_id) do nothing`);
  await db.execute(sql`
    insert into lift_sums ${SUMS_COLUMNS}
    ${sumsOf(sql`(select * from lift_outcomes where client_id = ${clientId}) o`, 1)}`);
  const done = made as { rowCount?: number | null; affectedRows?: number };
  if ((done.rowCount ?? done.affectedRows ?? 0) >= ANALYZE_AFTER)
    await db.execute(sql`analyze lift_outcomes`);
}

/** Computes every stored outcome of the client again (tests compare it with the incremental path). */
export async function recomputeLift(db: Db, clientId: string, windowDays: number): Promise<void> {
  await db.execute(sql`delete from lift_state where client_id = ${clientId}`);
  await refreshLift(db, clientId, windowDays);
}

/** The report's sums for a scope from the stored outcomes, brought up to date first; null: not found. */
export async function storedLiftSums(
  db: Db,
  clientId: string,
  scope: LiftScope,
  windowDays: number,
): Promise<LiftSums | null> {
  const where = await scopeCondition(db, clientId, scope);
  if (!where) return null;
  const currency = await refreshLift(db, clientId, windowDays);
  const rows = rowsOf(
    await db.execute(sql`
      select t.holdout_group, sum(t.targets) as targets, sum(t.meetings) as meetings,
             sum(t.with_opportunity) as with_opportunity, sum(t.opportunities) as opportunities,
             sum(t.supers) as supers,
             sum(t.pipeline_cents)::float8 / 100 as pipeline, sum(t.pipeline_squares)::float8 / 10000 as pipeline_squares,
             sum(t.won_cents)::float8 / 100 as won, sum(t.won_squares)::float8 / 10000 as won_squares
        from lift_sums t
       where t.client_id = ${clientId} and ${where}
       group by t.holdout_group`),
  );
  return toLiftSums(rows, currency);
}

/** Every assigned target of the scope with its stored outcomes, in pages by id (the export). */
export async function* storedAssignmentPages(
  db: Db,
  clientId: string,
  scope: LiftScope,
  windowDays: number,
  pageSize = 5_000,
): AsyncGenerator<AssignmentRow[]> {
  const where = await scopeCondition(db, clientId, scope);
  if (!where) return;
  await refreshLift(db, clientId, windowDays);
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows = rowsOf(
      await db.execute(sql`
        select t.target_id as id, t.holdout_group, t.entered_at as entered, t.met, t.opportunities,
          t.pipeline_cents as pipeline, t.won_cents as won,
          trim(pr.first_name || ' ' || pr.last_name) as name, coalesce(pr.email, '') as email,
          c.name as cadence
        from lift_outcomes t
        join targets tt on tt.id = t.target_id
        join prospects pr on pr.id = tt.prospect_id
        join cadences c on c.id = t.cadence_id
        where t.client_id = ${clientId} and ${where} and t.target_id > ${after}
        order by t.target_id limit ${pageSize}`),
    );
    if (!rows.length) return;
    yield rows.map(toAssignmentRow);
    after = String(rows[rows.length - 1]?.id);
    if (rows.length < pageSize) return;
  }
}

/**
 * The clients whose stored outcomes are behind: markers not yet folded in (dropping those of clients
 * that are gone), or a window setting changed since they were computed.
 */
export async function dirtyLiftClients(db: Db): Promise<string[]> {
  await db.execute(sql`
    delete from lift_dirty d where not exists (select 1 from clients c where c.id = d.client_id)`);
  const result = await db.execute(sql`
    select distinct client_id from lift_dirty
    union
    select st.client_id from lift_state st
      left join client_settings cs on cs.client_id = st.client_id
     where st.window_days <> coalesce(cs.attribution_window_days, ${ATTRIBUTION_WINDOW_DEFAULT_DAYS})`);
  return rowsOf(result).map((r) => String(r.client_id));
}
