import { sql } from 'drizzle-orm';
import { ATTRIBUTION_WINDOW_DEFAULT_DAYS } from '@rally/shared/schemas/reports';
import type { SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { forgetAccounts } from './account-rollups.ts';
import {
  accountEvents,
  accountProspects,
  accountsOfProspects,
  closedAt,
  createdAt,
  rowsOf,
  websiteDomain,
  windowOf,
} from './repository.ts';

/**
 * Stored attribution (docs/reports.md "Stored attribution"). Computing the model at read time costs
 * about a millisecond per opportunity and per stage move (their account's prospects by four ties,
 * their targets, their events in the window), so a quarter of a large client's pipeline took minutes.
 * The result is kept per opportunity and per move in `opportunity_attribution` and
 * `stage_move_attribution`; triggers (migration 0023) write to `attribution_dirty` what a write may
 * have changed, and `refreshAttribution` recomputes exactly that before a report reads. A report is
 * therefore always what the model gives from the facts of the moment, as before.
 *
 * A row is final once its moments (creation; close when won; the move) are more than five minutes
 * before it was computed: events are written at "now", so later ones cannot fall in its window, and
 * a later event dated before (an import, the demo's history) marks the client dirty by trigger.
 * Rows not final yet are computed again on every refresh.
 */

/** The grace within which an event may arrive after it happened without being "backdated". */
const SETTLE = sql`interval '5 minutes'`;
/**
 * How often a row not final yet is computed again. Every refresh did it at first, and the 107 won
 * opportunities with a close date still ahead in the reports bench made every report pay 0.9 s.
 */
const UNSETTLED_EVERY = sql`interval '1 minute'`;
const stale = sql`(not a.final and a.computed_at < now() - ${UNSETTLED_EVERY})`;

type Dirty = { kind: string; ref: string | null; domain: string | null };

/**
 * Brings the client's stored attribution up to date with its facts, for the window in force. A
 * no-op read when nothing changed; otherwise one transaction, serialised per client by an advisory
 * lock so concurrent reports do not compute the same rows twice.
 */
export async function refreshAttribution(db: Db, clientId: string, windowDays: number): Promise<void> {
  const [probe] = rowsOf(
    await db.execute(sql`
      select (select window_days from attribution_state where client_id = ${clientId}) as window_days,
             exists(select 1 from attribution_dirty where client_id = ${clientId}) as dirty,
             exists(select 1 from opportunity_attribution a where a.client_id = ${clientId} and ${stale}) as unsettled,
             exists(select 1 from stage_move_attribution a where a.client_id = ${clientId} and ${stale}) as unsettled_moves`),
  );
  if (
    probe &&
    Number(probe.window_days) === windowDays &&
    !probe.dirty &&
    !probe.unsettled &&
    !probe.unsettled_moves
  )
    return;
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('rally.attribution'), hashtext(${clientId}))`);
    const [state] = rowsOf(
      await tx.execute(sql`select window_days from attribution_state where client_id = ${clientId}`),
    );
    // Taken by deleting: a marker a concurrent write commits later stays for the next refresh.
    const dirty = rowsOf(
      await tx.execute(sql`delete from attribution_dirty where client_id = ${clientId}
        returning kind, ref, domain`),
    ) as Dirty[];
    // The account rollups hang on the same ties (account-rollups.ts): the accounts named are counted again.
    await forgetAccounts(
      tx,
      clientId,
      dirty.some((d) => d.kind === 'all') ? 'all' : await accountsNamed(tx, clientId, dirty),
    );
    await tx.execute(sql`insert into attribution_state (client_id, window_days) values (${clientId}, ${windowDays})
      on conflict (client_id) do update set window_days = excluded.window_days, refreshed_at = now()`);
    if (!state || Number(state.window_days) !== windowDays || dirty.some((d) => d.kind === 'all')) {
      await tx.execute(sql`delete from opportunity_attribution where client_id = ${clientId}`);
      await tx.execute(sql`delete from stage_move_attribution where client_id = ${clientId}`);
      await computeMissing(tx, clientId, windowDays, { sweepFrom: SWEEP_RESET_FROM });
      return;
    }
    const cleared = await clearChanged(tx, clientId, dirty);
    // New opportunities and moves have no row yet: only then are the missing ones looked for.
    if (dirty.some((d) => d.kind === 'new')) await computeMissing(tx, clientId, windowDays);
    else {
      await computeOpportunities(tx, clientId, windowDays, cleared.opportunities);
      await computeMoves(tx, clientId, windowDays, cleared.moves);
    }
  });
}

/** The accounts whose ties the markers say may have changed: named, by an e-mail domain, by a prospect. */
async function accountsNamed(db: Db, clientId: string, dirty: Dirty[]): Promise<string[]> {
  const refs = (kind: string) => [
    ...new Set(dirty.flatMap((d) => (d.kind === kind && d.ref ? [d.ref] : []))),
  ];
  const domains = [...new Set(dirty.flatMap((d) => (d.kind === 'domain' && d.domain ? [d.domain] : [])))];
  const prospects = refs('prospect');
  const companies = refs('company');
  if (!domains.length && !prospects.length) return companies;
  const named = rowsOf(
    await db.execute(sql`
      select ca.company_id from crm_accounts ca
       where ca.client_id = ${clientId} and ca.domain = any(${sql.param(domains)}::text[]) and ca.company_id is not null
      union
      select c.id from companies c
       where c.client_id = ${clientId} and c.website is not null and c.website <> ''
         and ${websiteDomain(sql`c.website`)} = any(${sql.param(domains)}::text[])
      ${prospects.length ? sql`union select ap.company_id from (${accountsOfProspects(clientId, prospects)}) ap` : sql``}`),
  ).map((r) => String(r.company_id));
  return [...new Set([...companies, ...named])];
}

/**
 * Deletes the stored rows the markers name (and those not final yet, once a minute), to be computed
 * again; returns their ids.
 */
async function clearChanged(
  db: Db,
  clientId: string,
  dirty: Dirty[],
): Promise<{ opportunities: string[]; moves: string[] }> {
  const refs = (kind: string) => [
    ...new Set(dirty.flatMap((d) => (d.kind === kind && d.ref ? [d.ref] : []))),
  ];
  const companies = refs('company');
  const opportunities = refs('opportunity');
  const domains = [...new Set(dirty.flatMap((d) => (d.kind === 'domain' && d.domain ? [d.domain] : [])))];
  const prospects = refs('prospect');
  // The accounts an e-mail domain ties prospects to: CRM accounts of that domain, companies of that website.
  const byDomain = domains.length
    ? sql`or a.company_id in (
        select ca.company_id from crm_accounts ca
         where ca.client_id = ${clientId} and ca.domain = any(${sql.param(domains)}::text[]) and ca.company_id is not null
        union
        select c.id from companies c
         where c.client_id = ${clientId} and c.website is not null and c.website <> ''
           and ${websiteDomain(sql`c.website`)} = any(${sql.param(domains)}::text[]))`
    : sql``;
  // The accounts prospects are tied to now, by the model's ties (repository.ts accountProspects).
  const byProspect = prospects.length
    ? sql`or a.company_id in (
        select ap.company_id from (${accountsOfProspects(clientId, prospects)}) ap)`
    : sql``;
  const changed = sql`(${stale}
      or a.company_id = any(${sql.param(companies)}::uuid[])
      or a.opportunity_id = any(${sql.param(opportunities)}::uuid[])
      ${byDomain} ${byProspect})`;
  const opps = rowsOf(
    await db.execute(sql`delete from opportunity_attribution a where a.client_id = ${clientId} and ${changed}
      returning a.opportunity_id`),
  ).map((r) => String(r.opportunity_id));
  const moves = rowsOf(
    await db.execute(sql`delete from stage_move_attribution a where a.client_id = ${clientId} and ${changed}
      returning a.history_id`),
  ).map((r) => String(r.history_id));
  // An opportunity named by a marker may have had no row (deleted in the CRM, now restored).
  return { opportunities: [...new Set([...opps, ...opportunities])], moves };
}

/** Rows computed in one refresh past which the tables' statistics are taken again. */
const ANALYZE_AFTER = 10_000;
/** Rows computed per statement: each stays well under a statement timeout on a large client. */
const CHUNK = 2_000;
/**
 * Missing rows from which one pass over the client's events (`sweepOpportunities`, `sweepMoves`)
 * beats computing each item from its account's events. The pass reads every event over the items'
 * span (about a minute for the reports bench's year of 10,000,000 events, however few the items),
 * an item costs about 2 ms: so new items take it from about 40,000, and a reset (a first
 * computation, a new window: every item of the client) from more than a chunk.
 */
const SWEEP_FROM = 40_000;
const SWEEP_RESET_FROM = CHUNK;

/**
 * Computes the rows missing (new opportunities and moves, or all after a reset): item by item for a
 * few, in one pass over the events for many.
 */
async function computeMissing(
  db: Db,
  clientId: string,
  windowDays: number,
  opts: { sweepFrom?: number } = {},
): Promise<number> {
  const idsOf = async (query: SQL) => rowsOf(await db.execute(query)).map((r) => String(r.id));
  const opportunities = await idsOf(sql`
    select o.id from opportunities o
     where o.client_id = ${clientId} and not o.is_deleted
       and not exists (select 1 from opportunity_attribution a where a.opportunity_id = o.id)`);
  const moves = await idsOf(sql`
    select h.id from opportunity_stage_history h
     where h.client_id = ${clientId} and h.from_stage_id is not null and h.to_stage_id is not null
       and not exists (select 1 from stage_move_attribution a where a.history_id = h.id)`);
  const sweepFrom = opts.sweepFrom ?? SWEEP_FROM;
  if (opportunities.length >= sweepFrom) await sweepOpportunities(db, clientId, windowDays, opportunities);
  else await computeOpportunities(db, clientId, windowDays, opportunities);
  if (moves.length >= sweepFrom) await sweepMoves(db, clientId, windowDays, moves);
  else await computeMoves(db, clientId, windowDays, moves);
  const computed = opportunities.length + moves.length;
  // A large first computation leaves the planner's statistics saying the tables are empty, and the
  // reports' plans then nested-loop over a hundred thousand rows expected to be seven.
  if (computed >= ANALYZE_AFTER) {
    await db.execute(sql`analyze opportunity_attribution`);
    await db.execute(sql`analyze stage_move_attribution`);
  }
  // So many new items are a sync or an import just written, which autovacuum has not yet counted:
  // with statistics that said a client had a thousand opportunities, each page of a 1,000,000-row
  // export bitmap-scanned every row below its cursor (137 s; 31 times a tenth of it).
  if (opportunities.length >= ANALYZE_AFTER) await db.execute(sql`analyze opportunities`);
  if (moves.length >= ANALYZE_AFTER) await db.execute(sql`analyze opportunity_stage_history`);
  return computed;
}

/**
 * Recomputes every stored row of the client, item by item or in one pass (tests compare the two).
 */
export async function recomputeAttribution(db: Db, clientId: string, windowDays: number, sweep: boolean) {
  await db.transaction(async (tx) => {
    await tx.execute(sql`delete from opportunity_attribution where client_id = ${clientId}`);
    await tx.execute(sql`delete from stage_move_attribution where client_id = ${clientId}`);
    await computeMissing(tx, clientId, windowDays, { sweepFrom: sweep ? 0 : Number.MAX_SAFE_INTEGER });
  });
}

/**
 * The one-pass computation. Asking each item for its account's events probes every target of the
 * account in every monthly partition its window spans, again for each of the account's items: about
 * 2 ms an item, 15 minutes for the reports bench's 100,000 opportunities and 265,000 moves. Instead
 * the client's events, tied to their accounts (and prospects), are put in one time-ordered stream
 * with a marker row per item, and window functions give each marker the last event before it (or
 * the first at or after it). Events sort before a marker at the same moment where the model's bound
 * is inclusive and after it where it is exclusive. `work_mem` is raised for the sorts.
 */
async function sweepOpportunities(db: Db, clientId: string, windowDays: number, ids: string[]) {
  const w = windowOf(windowDays);
  await db.execute(sql`set local work_mem = '64MB'`);
  await db.execute(sql`
    with o as materialized (
      select o.id, o.client_id, o.company_id,
             ${createdAt} - ${w} as g_lo, ${createdAt} as g_hi,
             case when o.is_won then ${closedAt} - ${w} end as i_lo,
             case when o.is_won then ${closedAt} end as i_hi,
             ${settledBy(sql`greatest(${createdAt}, case when o.is_won then ${closedAt} end)`)} as final
        from unnest(${sql.param(ids)}::uuid[]) as x(id)
        join opportunities o on o.id = x.id and o.client_id = ${clientId} and not o.is_deleted
    ),
    ${accountProspects(clientId, sql`select company_id from o`)},
    ap as materialized (select company_id, prospect_id from account_prospects),
    marks as (
      select o.id, ap.company_id, ap.prospect_id, o.g_lo, o.g_hi, o.i_lo, o.i_hi
        from o join ap on ap.company_id = o.company_id
    ),
    -- kind 0 an event; 1 the creation (is the last event before it inside the window?); 2 a won
    -- close (the same); 3 the window's start before creation (the first event at or after it).
    stream as (
      select ap.company_id, ap.prospect_id, e.occurred_at as t, 0 as kind, null::uuid as id,
             null::timestamptz as bound
        from engagement_events e
        join targets t on t.id = e.target_id and t.client_id = ${clientId}
        join ap on ap.prospect_id = t.prospect_id
       where e.client_id = ${clientId}
         and e.occurred_at >= (select least(min(g_lo), min(i_lo)) from o)
         and e.occurred_at < (select greatest(max(g_hi), max(i_hi)) from o)
      union all select company_id, prospect_id, g_hi, 1, id, g_lo from marks where g_hi is not null
      union all select company_id, prospect_id, i_hi, 2, id, i_lo from marks where i_hi is not null
      union all select company_id, prospect_id, g_lo, 3, id, g_hi from marks where g_lo is not null
    ),
    edges as (
      select id, kind, bound,
             max(t) filter (where kind = 0) over (partition by company_id, prospect_id
               order by t, kind = 0 rows unbounded preceding) as last_before,
             min(t) filter (where kind = 0) over (partition by company_id, prospect_id
               order by t desc, kind <> 0 rows unbounded preceding) as first_from
        from stream
    ),
    per as (
      select id,
             count(*) filter (where kind = 1 and last_before >= bound)::int as generated_prospects,
             count(*) filter (where kind = 2 and last_before >= bound)::int as influenced_prospects,
             min(first_from) filter (where kind = 3 and first_from < bound) as generated_at
        from edges where kind > 0 group by id
    )
    insert into opportunity_attribution
      (opportunity_id, client_id, company_id, window_days, generated_at, generated_prospects,
       influenced_prospects, final)
    select o.id, o.client_id, o.company_id, ${windowDays}, per.generated_at,
           coalesce(per.generated_prospects, 0), coalesce(per.influenced_prospects, 0), o.final
      from o left join per on per.id = o.id
    on conflict (opportunity_id) do nothing`);
}

/** The one-pass computation of stage moves (see `sweepOpportunities`): the last event before each. */
async function sweepMoves(db: Db, clientId: string, windowDays: number, ids: string[]) {
  const w = windowOf(windowDays);
  await db.execute(sql`set local work_mem = '64MB'`);
  await db.execute(sql`
    with m as materialized (
      select h.id, h.client_id, o.id as opportunity_id, o.company_id, h.from_stage_id, h.to_stage_id,
             h.changed_at, ${settledBy(sql`h.changed_at`)} as final
        from unnest(${sql.param(ids)}::uuid[]) as x(id)
        join opportunity_stage_history h on h.id = x.id and h.client_id = ${clientId}
        join opportunities o on o.id = h.opportunity_id and not o.is_deleted
       where h.from_stage_id is not null and h.to_stage_id is not null
    ),
    ${accountProspects(clientId, sql`select company_id from m`)},
    ap as materialized (select company_id, prospect_id from account_prospects),
    stream as (
      select ap.company_id, e.occurred_at as t, null::uuid as id
        from engagement_events e
        join targets t on t.id = e.target_id and t.client_id = ${clientId}
        join ap on ap.prospect_id = t.prospect_id
       where e.client_id = ${clientId}
         and e.occurred_at >= (select min(changed_at) - ${w} from m)
         and e.occurred_at < (select max(changed_at) from m)
      union all select company_id, changed_at, id from m where company_id is not null
    ),
    edges as (
      select id, t, max(t) filter (where id is null) over (partition by company_id
               order by t, id is null rows unbounded preceding) as last_before
        from stream
    )
    insert into stage_move_attribution
      (history_id, client_id, opportunity_id, company_id, from_stage_id, to_stage_id, window_days,
       changed_at, engaged_at, final)
    select m.id, m.client_id, m.opportunity_id, m.company_id, m.from_stage_id, m.to_stage_id,
           ${windowDays}, m.changed_at,
           case when edges.last_before >= m.changed_at - ${w} then edges.last_before end, m.final
      from m left join edges on edges.id = m.id
    on conflict (history_id) do nothing`);
}

const settledBy = (moment: SQL) => sql`coalesce(${moment} <= now() - ${SETTLE}, true)`;

/**
 * Computes the given opportunities' rows (those of the client, not deleted), a chunk per statement.
 * The chunk's ids are joined from `unnest`: as `id = any(…)` the planner read the whole of another
 * index for each chunk.
 */
async function computeOpportunities(db: Db, clientId: string, windowDays: number, all: string[]) {
  const w = windowOf(windowDays);
  for (let i = 0; i < all.length; i += CHUNK) {
    const ids = all.slice(i, i + CHUNK);
    await db.execute(sql`
      insert into opportunity_attribution
        (opportunity_id, client_id, company_id, window_days, generated_at, generated_prospects,
         influenced_prospects, final)
      select o.id, o.client_id, o.company_id, ${windowDays}, g.first_at, coalesce(g.prospects, 0),
             coalesce(i.prospects, 0),
             ${settledBy(sql`greatest(${createdAt}, case when o.is_won then ${closedAt} end)`)}
        from unnest(${sql.param(ids)}::uuid[]) as x(id)
        join opportunities o on o.id = x.id and o.client_id = ${clientId} and not o.is_deleted
        left join lateral (
          select min(e.occurred_at) as first_at, count(distinct ap.prospect_id)::int as prospects
          ${accountEvents(clientId, sql`o.company_id`, sql`${createdAt} - ${w}`, createdAt)}
        ) g on o.company_id is not null
        left join lateral (
          select count(distinct ap.prospect_id)::int as prospects
          ${accountEvents(clientId, sql`o.company_id`, sql`${closedAt} - ${w}`, closedAt)}
        ) i on o.company_id is not null and o.is_won
      on conflict (opportunity_id) do nothing`);
  }
}

/** Computes the given stage moves' rows (moves between two catalogue stages), a chunk per statement. */
async function computeMoves(db: Db, clientId: string, windowDays: number, all: string[]) {
  const w = windowOf(windowDays);
  for (let i = 0; i < all.length; i += CHUNK) {
    const ids = all.slice(i, i + CHUNK);
    await db.execute(sql`
      insert into stage_move_attribution
        (history_id, client_id, opportunity_id, company_id, from_stage_id, to_stage_id, window_days,
         changed_at, engaged_at, final)
      select h.id, h.client_id, o.id, o.company_id, h.from_stage_id, h.to_stage_id, ${windowDays},
             h.changed_at, eng.last_at,
             ${settledBy(sql`h.changed_at`)}
        from unnest(${sql.param(ids)}::uuid[]) as x(id)
        join opportunity_stage_history h on h.id = x.id and h.client_id = ${clientId}
        join opportunities o on o.id = h.opportunity_id and not o.is_deleted
        left join lateral (
          select max(e.occurred_at) as last_at
          ${accountEvents(clientId, sql`o.company_id`, sql`h.changed_at - ${w}`, sql`h.changed_at`)}
        ) eng on o.company_id is not null
       where h.from_stage_id is not null and h.to_stage_id is not null
      on conflict (history_id) do nothing`);
  }
}

/**
 * The clients whose stored attribution is behind: writes not yet folded in, or a window setting
 * changed since it was computed (every row must be computed again: minutes for a large client, which
 * the background job should pay rather than the next report).
 */
export async function dirtyClients(db: Db): Promise<string[]> {
  const result = await db.execute(sql`
    select client_id from attribution_dirty
    union
    select st.client_id from attribution_state st
      left join client_settings cs on cs.client_id = st.client_id
     where st.window_days <> coalesce(cs.attribution_window_days, ${ATTRIBUTION_WINDOW_DEFAULT_DAYS})`);
  return rowsOf(result).map((r) => String(r.client_id));
}
