import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import type { StoredJourneyRule } from '../../db/schema/index.ts';

/**
 * The SQL of journeys (issue 18, docs/decisions/0010), always scoped by client. Values come back as
 * text, int or epoch milliseconds: the two drivers parse bigints, uuids and timestamps differently.
 */
export type Tx = Pick<Db, 'select' | 'insert' | 'update' | 'delete' | 'execute'>;

export function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

const DAY_MS = 86_400_000;

export type JourneyRow = {
  id: string;
  client_id: string;
  cohort_id: string;
  cohort_name: string;
  cohort_status: 'active' | 'paused' | 'archived';
  cadence_id: number;
  name: string;
  evaluated_ms: number | null;
  created_ms: number;
  updated_ms: number;
  eval_cursor: string | null;
  full_evaluated_ms: number | null;
};

export type StageRow = {
  id: string;
  journey_id: string;
  position: number;
  name: string;
  content_ids: string[];
  rules: StoredJourneyRule[];
  match: 'any' | 'all';
  accounts: number;
};

const journeyColumns = sql`j.id::text, j.client_id::text, j.cohort_id::text, c.name as cohort_name,
  c.status as cohort_status, c.cadence_id, j.name,
  (extract(epoch from j.evaluated_at) * 1000)::float8 as evaluated_ms,
  (extract(epoch from j.created_at) * 1000)::float8 as created_ms,
  (extract(epoch from j.updated_at) * 1000)::float8 as updated_ms, j.eval_cursor::text,
  (extract(epoch from j.full_evaluated_at) * 1000)::float8 as full_evaluated_ms`;

export async function findJourney(db: Tx, clientId: string, id: string): Promise<JourneyRow | null> {
  const [row] = rowsOf<JourneyRow>(
    await db.execute(sql`select ${journeyColumns} from journeys j join cohorts c on c.id = j.cohort_id
      where j.id = ${id} and j.client_id = ${clientId}`),
  );
  return row ?? null;
}

export async function findJourneyById(db: Tx, id: string): Promise<JourneyRow | null> {
  const [row] = rowsOf<JourneyRow>(
    await db.execute(sql`select ${journeyColumns} from journeys j join cohorts c on c.id = j.cohort_id
      where j.id = ${id}`),
  );
  return row ?? null;
}

export async function findJourneyOfCohort(
  db: Tx,
  clientId: string,
  cohortId: string,
): Promise<JourneyRow | null> {
  const [row] = rowsOf<JourneyRow>(
    await db.execute(sql`select ${journeyColumns} from journeys j join cohorts c on c.id = j.cohort_id
      where j.cohort_id = ${cohortId} and j.client_id = ${clientId}`),
  );
  return row ?? null;
}

export async function listJourneys(db: Tx, clientId: string): Promise<JourneyRow[]> {
  return rowsOf<JourneyRow>(
    await db.execute(sql`select ${journeyColumns} from journeys j join cohorts c on c.id = j.cohort_id
      where j.client_id = ${clientId} order by lower(j.name), j.id`),
  );
}

/** Ids of the journeys whose cohort is active (the periodic run evaluates them). */
export async function activeJourneyIds(db: Tx): Promise<string[]> {
  return rowsOf<{ id: string }>(
    await db.execute(sql`select j.id::text from journeys j join cohorts c on c.id = j.cohort_id
      where c.status = 'active' order by j.id`),
  ).map((r) => r.id);
}

/**
 * The stages of journeys in order, with the accounts in each now. The job asks without the counts
 * (`counts` false, accounts 0): counting reads every account of the journey.
 */
export async function stagesOf(db: Tx, journeyIds: string[], counts = true): Promise<StageRow[]> {
  if (!journeyIds.length) return [];
  const accounts = counts
    ? sql`(select count(*)::int from journey_accounts ja where ja.journey_id = s.journey_id and ja.stage_id = s.id)`
    : sql`0`;
  return rowsOf<StageRow>(
    await db.execute(sql`
select s.id::text, s.journey_id::text, s.position, s.name, s.content_ids, s.rules, s.match,
  ${accounts} as accounts
from journey_stages s
where s.journey_id in (${sql.join(
      journeyIds.map((id) => sql`${id}::uuid`),
      sql`, `,
    )})
order by s.journey_id, s.position`),
  ).map((r) => ({ ...r, accounts: Number(r.accounts), position: Number(r.position) }));
}

export async function moveCount(db: Tx, journeyId: string): Promise<number> {
  const [row] = rowsOf<{ n: number }>(
    await db.execute(sql`select count(*)::int as n from journey_moves where journey_id = ${journeyId}`),
  );
  return Number(row?.n ?? 0);
}

export async function lockCohort(
  tx: Tx,
  clientId: string,
  cohortId: string,
): Promise<{ id: string; status: string; cadence_id: number; name: string } | null> {
  const [row] = rowsOf<{ id: string; status: string; cadence_id: number; name: string }>(
    await tx.execute(sql`select id::text, status, cadence_id, name from cohorts
      where id = ${cohortId} and client_id = ${clientId} for update`),
  );
  return row ?? null;
}

/** The content the cohort shows today (its hidden cadence's day 1), the default of a new journey's first stage. */
export async function cohortContentIds(tx: Tx, cadenceId: number): Promise<string[]> {
  const [row] = rowsOf<{ ids: string[] | null }>(
    await tx.execute(sql`select coalesce(jsonb_agg(e->>'content_id') filter (where e->>'content_id' is not null), '[]'::jsonb) as ids
      from cadence_days cd, jsonb_array_elements(case when jsonb_typeof(cd.content_days) = 'array' then cd.content_days else '[]'::jsonb end) e
      where cd.cadence_id = ${cadenceId} and cd.day_number = 1`),
  );
  return row?.ids ?? [];
}

export async function insertJourney(
  tx: Tx,
  v: {
    id: string;
    clientId: string;
    cohortId: string;
    name: string;
    createdBy: string | null;
    createdAt?: Date;
  },
): Promise<string> {
  const [row] = rowsOf<{ id: string }>(
    await tx.execute(sql`insert into journeys (id, client_id, cohort_id, name, created_by, created_at, updated_at)
      values (${v.id}, ${v.clientId}, ${v.cohortId}, ${v.name}, ${v.createdBy},
        coalesce(${v.createdAt?.toISOString() ?? null}::timestamptz, now()), coalesce(${v.createdAt?.toISOString() ?? null}::timestamptz, now()))
      returning id::text`),
  );
  if (!row) throw new Error('journey insert returned nothing');
  return row.id;
}

/** Renamed and its stages rewritten: the next run reads every account (its rules may have changed). */
export async function touchJourney(tx: Tx, id: string, name: string): Promise<void> {
  await tx.execute(
    sql`update journeys set name = ${name}, updated_at = now(), full_evaluated_at = null where id = ${id}`,
  );
}

export type StageWrite = {
  id: string;
  position: number;
  name: string;
  contentIds: string[];
  rules: StoredJourneyRule[];
  match: 'any' | 'all';
};

/**
 * Writes the stages (new ones inserted, kept ones renamed and moved, the rest deleted) and mirrors
 * their content into the cohort cadence's days: stage at position k = day k. Positions are first
 * moved out of the way so the order can be any permutation.
 */
export async function writeStages(
  tx: Tx,
  journey: { id: string; clientId: string; cadenceId: number },
  stages: StageWrite[],
): Promise<void> {
  const keep = stages.map((s) => sql`${s.id}::uuid`);
  await tx.execute(sql`delete from journey_stages where journey_id = ${journey.id}
    and id not in (${sql.join(keep, sql`, `)})`);
  await tx.execute(
    sql`update journey_stages set position = position + 1000 where journey_id = ${journey.id}`,
  );
  for (const s of stages) {
    await tx.execute(sql`
insert into journey_stages (id, client_id, journey_id, position, name, content_ids, rules, match)
values (${s.id}, ${journey.clientId}, ${journey.id}, ${s.position}, ${s.name},
  ${JSON.stringify(s.contentIds)}::jsonb, ${JSON.stringify(s.rules)}::jsonb, ${s.match})
on conflict (id) do update set position = excluded.position, name = excluded.name,
  content_ids = excluded.content_ids, rules = excluded.rules, match = excluded.match, updated_at = now()`);
    const days = s.contentIds.map((id) => ({ content_id: id, day_transition_actions: [] }));
    await tx.execute(sql`
insert into cadence_days (client_id, cadence_id, day_number, content_days)
values (${journey.clientId}, ${journey.cadenceId}, ${s.position}, ${JSON.stringify(days)}::jsonb)
on conflict (cadence_id, day_number) do update set content_days = excluded.content_days`);
  }
  await tx.execute(
    sql`delete from cadence_days where cadence_id = ${journey.cadenceId} and day_number > ${stages.length}`,
  );
}

/** Accounts in each of the given stages (a stage holding accounts cannot be removed). */
export async function accountsInStages(tx: Tx, journeyId: string): Promise<Map<string, number>> {
  const rows = rowsOf<{ stage_id: string; n: number }>(
    await tx.execute(sql`select stage_id::text, count(*)::int as n from journey_accounts
      where journey_id = ${journeyId} group by stage_id`),
  );
  return new Map(rows.map((r) => [r.stage_id, Number(r.n)]));
}

export async function contentIdsOf(tx: Tx, clientId: string, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = rowsOf<{ id: string }>(
    await tx.execute(sql`select id::text from content where client_id = ${clientId}
      and id in (${sql.join(
        ids.map((id) => sql`${id}::uuid`),
        sql`, `,
      )})`),
  );
  return new Set(rows.map((r) => r.id));
}

export async function crmStageIdsOf(tx: Tx, clientId: string, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = rowsOf<{ id: string }>(
    await tx.execute(sql`select id::text from crm_stages where client_id = ${clientId}
      and id in (${sql.join(
        ids.map((id) => sql`${id}::uuid`),
        sql`, `,
      )})`),
  );
  return new Set(rows.map((r) => r.id));
}

/** Members' account: their company, or the member itself when it has none. */
const ACCOUNT = sql.raw('coalesce(m.company_id, m.prospect_id)');

/**
 * The accounts a step reads: a range of account ids (a full run's chunk) or a list (the accounts
 * whose data changed, decision 0036). The list goes as one JSON parameter: both drivers take it.
 */
export type AccountScope = { after: string | null; upTo: string } | { ids: string[] };

function inScope(column: SQL, scope: AccountScope): SQL {
  if ('ids' in scope) {
    return sql`${column} in (select (jsonb_array_elements_text(${JSON.stringify(scope.ids)}::jsonb))::uuid)`;
  }
  return sql`${column} > coalesce(${scope.after}::uuid, '00000000-0000-0000-0000-000000000000'::uuid) and ${column} <= ${scope.upTo}::uuid`;
}

/**
 * Puts the members' targets on their account's stage (cadence day = stage position), so each is
 * served that stage's ads. Only rows that differ are written: idempotent. `accounts` narrows it to
 * a chunk's accounts.
 */
export async function alignTargets(
  tx: Tx,
  journey: { id: string; cohortId: string },
  scope?: AccountScope,
): Promise<number> {
  const within = scope ? sql`and ${inScope(sql.raw('ja.account_id'), scope)}` : sql``;
  const [row] = rowsOf<{ n: number }>(
    await tx.execute(sql`
with up as (
  update targets t set day_number = st.position, day_entered_at = ja.stage_entered_at,
    day_impressions = 0, day_clicks = 0, updated_at = now()
  from cohort_members m
  join journey_accounts ja on ja.journey_id = ${journey.id} and ja.account_id = ${ACCOUNT}
  join journey_stages st on st.id = ja.stage_id
  where m.cohort_id = ${journey.cohortId} and t.id = m.target_id and t.day_number <> st.position ${within}
  returning t.id
)
select count(*)::int as n from up`),
  );
  return Number(row?.n ?? 0);
}

/**
 * Accounts of the cohort's members not yet in the journey enter it in its first stage. `dirtyOnly`:
 * only accounts listed in journey_dirty_accounts (a new member lists its account), so a run between
 * full ones does not read every member.
 */
export async function enterAccounts(
  tx: Tx,
  journey: { id: string; clientId: string; cohortId: string },
  firstStageId: string,
  now: Date,
  dirtyOnly = false,
): Promise<number> {
  const listed = dirtyOnly
    ? sql`and ${ACCOUNT} in (select d.account_id from journey_dirty_accounts d where d.journey_id = ${journey.id})`
    : sql``;
  const [row] = rowsOf<{ n: number }>(
    await tx.execute(sql`
with ins as (
  insert into journey_accounts (journey_id, account_id, client_id, company_id, stage_id, entry_stage_id, joined_at, stage_entered_at)
  select distinct on (${ACCOUNT}) ${journey.id}::uuid, ${ACCOUNT}, ${journey.clientId}::uuid, m.company_id,
    ${firstStageId}::uuid, ${firstStageId}::uuid, ${now.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz
  from cohort_members m where m.cohort_id = ${journey.cohortId} ${listed}
  order by ${ACCOUNT}
  on conflict (journey_id, account_id) do nothing
  returning 1
)
select count(*)::int as n from ins`),
  );
  return Number(row?.n ?? 0);
}

/**
 * Fresh statistics after many accounts entered at once: the planner otherwise still sees an empty
 * journey and picks nested loops over indexes that scan a whole stage per account.
 */
export async function analyzeAccounts(tx: Tx): Promise<void> {
  await tx.execute(sql`analyze journey_accounts`);
}

/** The SQL of one rule over an account row `a` (its totals and stage entry time). */
function ruleSql(r: StoredJourneyRule, ctx: { clientId: string; journeyCreatedAt: Date; now: Date }): SQL {
  const n = Number(r.value ?? 0);
  switch (r.kind) {
    case 'impressions_gte':
      return sql`a.imp >= ${n}`;
    case 'clicks_gte':
      return sql`a.clk >= ${n}`;
    case 'views_gte':
      return sql`a.vw >= ${n}`;
    case 'network_impressions_gte':
    case 'network_clicks_gte': {
      // The engagement ad networks report for the account's company (LinkedIn's company-level
      // results, ad-networks/company-stats.ts), through the CRM account each organisation matched,
      // on the days from `days` ago (UTC) to now.
      const metric = sql.raw(r.kind === 'network_clicks_gte' ? 's.clicks' : 's.impressions');
      const since = new Date(ctx.now.getTime() - (Number(r.days ?? 1) - 1) * DAY_MS)
        .toISOString()
        .slice(0, 10);
      return sql`a.company_id is not null and (select coalesce(sum(${metric}), 0) from ad_network_company_stats s
        join ad_network_organizations o on o.client_id = s.client_id and o.network = s.network
          and o.organization_id = s.organization_id
        join crm_accounts ca on ca.id = o.crm_account_id
        where s.client_id = ${ctx.clientId} and ca.company_id = a.company_id
          and s.day >= ${since}::date) >= ${n}`;
    }
    case 'days_in_stage_gte':
      return sql`a.stage_entered_at <= ${new Date(ctx.now.getTime() - n * DAY_MS).toISOString()}::timestamptz`;
    case 'opportunity_created':
      return sql`exists (select 1 from opportunities o where o.client_id = ${ctx.clientId}
        and o.company_id = a.company_id and not o.is_deleted
        and coalesce(o.crm_created_at, o.created_at) >= ${ctx.journeyCreatedAt.toISOString()}::timestamptz
        and coalesce(o.crm_created_at, o.created_at) <= ${ctx.now.toISOString()}::timestamptz)`;
    case 'crm_stage_reached': {
      // Reached during the journey (between its start and now): a stage history entry into the
      // stage or past it in its pipeline (a closed-lost stage is past nothing); an opportunity
      // without history counts by its current stage when it was created during the journey.
      const from = ctx.journeyCreatedAt.toISOString();
      const to = ctx.now.toISOString();
      const atOrPast = (alias: string) =>
        sql.raw(`(${alias}.id = x.id or (${alias}.integration_id = x.integration_id
          and ${alias}.pipeline_key = x.pipeline_key and ${alias}.sort_order >= x.sort_order
          and not (${alias}.is_closed and not ${alias}.is_won)))`);
      return sql`exists (select 1 from opportunities o
        join crm_stages x on x.id = ${r.crm_stage_id}::uuid
        where o.client_id = ${ctx.clientId} and o.company_id = a.company_id and not o.is_deleted
          and (exists (select 1 from opportunity_stage_history h join crm_stages hs on hs.id = h.to_stage_id
                where h.opportunity_id = o.id and ${atOrPast('hs')}
                  and h.changed_at >= ${from}::timestamptz and h.changed_at <= ${to}::timestamptz)
            or (not exists (select 1 from opportunity_stage_history h2 where h2.opportunity_id = o.id)
              and exists (select 1 from crm_stages cs where cs.id = o.stage_id and ${atOrPast('cs')})
              and coalesce(o.crm_created_at, o.created_at) >= ${from}::timestamptz
              and coalesce(o.crm_created_at, o.created_at) <= ${to}::timestamptz)))`;
    }
    default:
      return sql`false`;
  }
}

function stageSql(s: StageWrite | StageRow, ctx: Parameters<typeof ruleSql>[1]): SQL | null {
  if (!s.rules.length) return null;
  const parts = s.rules.map((r) => sql`(${ruleSql(r, ctx)})`);
  return sql`(${sql.join(parts, s.match === 'all' ? sql` and ` : sql` or `)})`;
}

export type MovedRow = {
  id: string;
  account_id: string;
  company_name: string | null;
  from_stage: string | null;
  to_stage: string;
  feed_id: string | null;
};

/** The last account id of the next chunk of `limit` accounts after `after` (a full run), and their number. */
export async function chunkEdge(
  tx: Tx,
  journeyId: string,
  after: string | null,
  limit: number,
): Promise<{ last: string | null; n: number }> {
  const [edge] = rowsOf<{ last: string; n: number }>(
    await tx.execute(sql`select account_id::text as last, count(*) over ()::int as n from (
      select account_id from journey_accounts where journey_id = ${journeyId}
        and account_id > coalesce(${after}::uuid, '00000000-0000-0000-0000-000000000000'::uuid)
      order by account_id limit ${limit}) x order by account_id desc limit 1`),
  );
  return { last: edge?.last ?? null, n: Number(edge?.n ?? 0) };
}

/**
 * Some of a journey's accounts (a chunk of a full run, or the changed accounts): each goes to
 * the furthest later stage whose rules hold on its members' totals (impressions, clicks, views of
 * their targets in the cohort cadence), CRM opportunities and time in its stage. Compare-and-set on
 * the stage it had, so a second run (or a concurrent one) moves nothing twice; every move is a
 * journey_moves row and a feed item, in the same statement. Returns the moves and the chunk's last id.
 */
export async function evaluateChunk(
  tx: Tx,
  journey: {
    id: string;
    clientId: string;
    cohortId: string;
    cadenceId: number;
    name: string;
    cohortName: string;
    createdAt: Date;
  },
  stages: StageRow[],
  scope: AccountScope,
  now: Date,
): Promise<MovedRow[]> {
  const ctx = { clientId: journey.clientId, journeyCreatedAt: journey.createdAt, now };
  // Furthest first: the first stage whose rules hold is where the account goes.
  const arms: SQL[] = [];
  const reasons: SQL[] = [];
  for (const s of [...stages].sort((x, y) => y.position - x.position)) {
    const cond = stageSql(s, ctx);
    if (!cond) continue;
    arms.push(sql`when a.pos < ${s.position} and ${cond} then ${s.position}::int`);
    const held = s.rules.map((r) => sql`case when ${ruleSql(r, ctx)} then ${r.kind}::text end`);
    reasons.push(sql`when ${s.position}::int then concat_ws(',', ${sql.join(held, sql`, `)})`);
  }
  if (!arms.length) return [];
  const rows = rowsOf<MovedRow>(
    await tx.execute(sql`
with chunk as (
  select ja.account_id, ja.company_id, ja.stage_id, ja.stage_entered_at, st.position as pos, st.name as stage_name
  from journey_accounts ja join journey_stages st on st.id = ja.stage_id
  where ja.journey_id = ${journey.id} and ${inScope(sql.raw('ja.account_id'), scope)}
), a as materialized (
  select c.*, coalesce(sum(t.impressions), 0) as imp, coalesce(sum(t.clicks), 0) as clk,
    coalesce(sum(t.views), 0) as vw
  from chunk c
  left join cohort_members m on m.cohort_id = ${journey.cohortId} and ${ACCOUNT} = c.account_id
  left join targets t on t.id = m.target_id
  group by c.account_id, c.company_id, c.stage_id, c.stage_entered_at, c.pos, c.stage_name
), d as (
  select a.*, case ${sql.join(arms, sql` `)} else null end as to_pos from a
), dest as materialized (
  select a.account_id, a.company_id, a.stage_id, a.stage_name, a.to_pos,
    case a.to_pos ${sql.join(reasons, sql` `)} else '' end as reason
  from d a where a.to_pos is not null
), moved as (
  update journey_accounts ja set stage_id = ns.id, stage_entered_at = ${now.toISOString()}::timestamptz
  from dest d join journey_stages ns on ns.journey_id = ${journey.id} and ns.position = d.to_pos
  -- The stage check is "is not distinct from" so that it cannot pick the (journey, stage) index: with
  -- that index each row looked up scanned its whole stage (13 s for 7,369 moves of 20,000 accounts).
  where ja.journey_id = ${journey.id} and ja.account_id = d.account_id and ja.stage_id is not distinct from d.stage_id
  returning ja.account_id, ja.company_id, d.stage_id as from_id, d.stage_name as from_name,
    ns.id as to_id, ns.name as to_name, d.reason
), ins as (
  insert into journey_moves (client_id, journey_id, account_id, company_id, from_stage_id, to_stage_id,
    from_stage, to_stage, reason, moved_at)
  select ${journey.clientId}::uuid, ${journey.id}::uuid, account_id, company_id, from_id, to_id, from_name,
    to_name, reason, ${now.toISOString()}::timestamptz
  from moved
  returning id, account_id, company_id, from_stage, to_stage, reason
), named as (
  select ins.*, coalesce(co.name, nullif(btrim(concat_ws(' ', p.first_name, p.last_name)), '')) as company_name
  from ins left join companies co on co.id = ins.company_id
  left join prospects p on ins.company_id is null and p.id = ins.account_id
), feed as (
  insert into feed_items (client_id, type, cadence_id, data, created_at)
  select ${journey.clientId}::uuid, 'journey', ${journey.cadenceId}::int,
    jsonb_build_object('company_name', named.company_name, 'cadence_name', ${`Cohort: ${journey.cohortName}`}::text,
      'journey_id', ${journey.id}::text, 'cohort_id', ${journey.cohortId}::text, 'journey', ${journey.name}::text,
      'account_id', named.account_id::text,
      'from_stage', named.from_stage, 'to_stage', named.to_stage, 'reason', named.reason, 'move_id', named.id),
    ${now.toISOString()}::timestamptz
  from named
  returning id::text as feed_id, data->>'move_id' as id, data->>'account_id' as account_id,
    data->>'company_name' as company_name, data->>'from_stage' as from_stage, data->>'to_stage' as to_stage
)
select id, account_id, company_name, from_stage, to_stage, feed_id from feed order by account_id`),
  );
  return rows;
}

export async function setCursor(
  tx: Tx,
  id: string,
  cursor: string | null,
  finished: Date | null,
): Promise<void> {
  await tx.execute(sql`update journeys set eval_cursor = ${cursor}::uuid,
    evaluated_at = coalesce(${finished?.toISOString() ?? null}::timestamptz, evaluated_at) where id = ${id}`);
}

/** The cohort page's members' stages: account id → stage name and position. */
export async function memberStages(
  db: Tx,
  cohortId: string,
  prospectIds: string[],
): Promise<Map<string, { id: string; name: string; position: number }>> {
  if (!prospectIds.length) return new Map();
  const rows = rowsOf<{ prospect_id: string; id: string; name: string; position: number }>(
    await db.execute(sql`
select m.prospect_id::text, st.id::text, st.name, st.position
from cohort_members m
join journeys j on j.cohort_id = m.cohort_id
join journey_accounts ja on ja.journey_id = j.id and ja.account_id = ${ACCOUNT}
join journey_stages st on st.id = ja.stage_id
where m.cohort_id = ${cohortId} and m.prospect_id in (${sql.join(
      prospectIds.map((id) => sql`${id}::uuid`),
      sql`, `,
    )})`),
  );
  return new Map(rows.map((r) => [r.prospect_id, { id: r.id, name: r.name, position: Number(r.position) }]));
}

export type DeltaRow = { day: string | null; stage_id: string; delta: number };

/**
 * Changes of accounts per stage: entries (+1 to the entry stage) and moves (−1 from, +1 to), summed
 * before `from` (day null) and per UTC day in [from, to).
 */
export async function stageDeltas(db: Tx, journeyId: string, from: Date, to: Date): Promise<DeltaRow[]> {
  return rowsOf<DeltaRow>(
    await db.execute(sql`
with ev as (
  select joined_at as at, entry_stage_id as stage_id, 1 as d from journey_accounts
    where journey_id = ${journeyId} and entry_stage_id is not null
  union all
  select moved_at, from_stage_id, -1 from journey_moves where journey_id = ${journeyId} and from_stage_id is not null
  union all
  select moved_at, to_stage_id, 1 from journey_moves where journey_id = ${journeyId} and to_stage_id is not null
)
select case when at < ${from.toISOString()}::timestamptz then null
  else to_char((at at time zone 'UTC')::date, 'YYYY-MM-DD') end as day,
  stage_id::text, sum(d)::int as delta
from ev where at < ${to.toISOString()}::timestamptz
group by 1, 2`),
  ).map((r) => ({ ...r, delta: Number(r.delta) }));
}

export async function movesInRange(db: Tx, journeyId: string, from: Date, to: Date): Promise<number> {
  const [row] = rowsOf<{ n: number }>(
    await db.execute(sql`select count(*)::int as n from journey_moves where journey_id = ${journeyId}
      and moved_at >= ${from.toISOString()}::timestamptz and moved_at < ${to.toISOString()}::timestamptz`),
  );
  return Number(row?.n ?? 0);
}

export type MoveListRow = {
  id: string;
  account_id: string;
  company_name: string | null;
  from_stage_id: string | null;
  from_stage: string | null;
  to_stage_id: string | null;
  to_stage: string;
  reason: string;
  moved_ms: number;
};

export async function listMoves(
  db: Tx,
  journeyId: string,
  page: number,
  pageSize: number,
): Promise<{ rows: MoveListRow[]; total: number }> {
  const rows = rowsOf<MoveListRow>(
    await db.execute(sql`
select mv.id::text, mv.account_id::text,
  coalesce(co.name, nullif(btrim(concat_ws(' ', p.first_name, p.last_name)), '')) as company_name,
  mv.from_stage_id::text, coalesce(fs.name, mv.from_stage) as from_stage,
  mv.to_stage_id::text, coalesce(ts.name, mv.to_stage) as to_stage, mv.reason,
  (extract(epoch from mv.moved_at) * 1000)::float8 as moved_ms
from journey_moves mv
left join companies co on co.id = mv.company_id
left join prospects p on mv.company_id is null and p.id = mv.account_id
left join journey_stages fs on fs.id = mv.from_stage_id
left join journey_stages ts on ts.id = mv.to_stage_id
where mv.journey_id = ${journeyId}
order by mv.moved_at desc, mv.id desc
limit ${pageSize} offset ${(page - 1) * pageSize}`),
  );
  return { rows, total: await moveCount(db, journeyId) };
}

export type CohortJourneyRow = {
  cohort_id: string;
  cohort_name: string;
  status: 'active' | 'paused' | 'archived';
  size: number;
  accounts: number;
  journey_id: string | null;
  journey_name: string | null;
  stages: number;
};

/** The client's cohorts (archived last) with their journey, if any. */
export async function cohortsWithJourneys(db: Tx, clientId: string): Promise<CohortJourneyRow[]> {
  return rowsOf<CohortJourneyRow>(
    await db.execute(sql`
select c.id::text as cohort_id, c.name as cohort_name, c.status, c.size, c.accounts,
  j.id::text as journey_id, j.name as journey_name,
  (select count(*)::int from journey_stages s where s.journey_id = j.id) as stages
from cohorts c left join journeys j on j.cohort_id = c.id
where c.client_id = ${clientId}
order by c.status = 'archived', lower(c.name), c.id
limit 500`),
  ).map((r) => ({ ...r, size: Number(r.size), accounts: Number(r.accounts), stages: Number(r.stages) }));
}

export async function journeyIdOfCohort(db: Tx, cohortId: string): Promise<string | null> {
  const [row] = rowsOf<{ id: string }>(
    await db.execute(sql`select id::text from journeys where cohort_id = ${cohortId}`),
  );
  return row?.id ?? null;
}
