import { sql } from 'drizzle-orm';
import { ATTRIBUTION_WINDOW_DEFAULT_DAYS } from '@rally/shared/schemas/reports';
import type { SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import {
  accountEvents,
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
    await tx.execute(sql`insert into attribution_state (client_id, window_days) values (${clientId}, ${windowDays})
      on conflict (client_id) do update set window_days = excluded.window_days, refreshed_at = now()`);
    if (!state || Number(state.window_days) !== windowDays || dirty.some((d) => d.kind === 'all')) {
      await tx.execute(sql`delete from opportunity_attribution where client_id = ${clientId}`);
      await tx.execute(sql`delete from stage_move_attribution where client_id = ${clientId}`);
      await computeMissing(tx, clientId, windowDays);
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
 * Computes the rows missing (new opportunities and moves, or all after a reset), a chunk of ids at a
 * time in id order.
 */
async function computeMissing(db: Db, clientId: string, windowDays: number): Promise<number> {
  const missingOpportunities = (after: string) => sql`
    select o.id from opportunities o
     where o.client_id = ${clientId} and not o.is_deleted and o.id > ${after}::uuid
       and not exists (select 1 from opportunity_attribution a where a.opportunity_id = o.id)
     order by o.id limit ${CHUNK}`;
  const missingMoves = (after: string) => sql`
    select h.id from opportunity_stage_history h
     where h.client_id = ${clientId} and h.id > ${after}::uuid
       and h.from_stage_id is not null and h.to_stage_id is not null
       and not exists (select 1 from stage_move_attribution a where a.history_id = h.id)
     order by h.id limit ${CHUNK}`;
  const computed =
    (await inChunks(db, missingOpportunities, (ids) => computeOpportunities(db, clientId, windowDays, ids))) +
    (await inChunks(db, missingMoves, (ids) => computeMoves(db, clientId, windowDays, ids)));
  // A large first computation leaves the planner's statistics saying the tables are empty, and the
  // reports' plans then nested-loop over a hundred thousand rows expected to be seven.
  if (computed >= ANALYZE_AFTER) {
    await db.execute(sql`analyze opportunity_attribution`);
    await db.execute(sql`analyze stage_move_attribution`);
  }
  return computed;
}

/** Runs `compute` over the ids `select` finds, a chunk at a time in id order; returns how many. */
async function inChunks(
  db: Db,
  select: (after: string) => SQL,
  compute: (ids: string[]) => Promise<void>,
): Promise<number> {
  let done = 0;
  for (let after = '00000000-0000-0000-0000-000000000000'; ;) {
    const ids = rowsOf(await db.execute(select(after))).map((r) => String(r.id));
    await compute(ids);
    done += ids.length;
    if (ids.length < CHUNK) return done;
    after = ids.at(-1) as string;
  }
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
