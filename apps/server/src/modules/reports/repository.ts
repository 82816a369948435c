import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import type { OpportunityReportSort, ProgressedSort, SortOrder } from '@rally/shared/schemas/reports';
import { orderBySort } from './report-sort.ts';
import type { SortKeys } from './report-sort.ts';
import { accountsEngagedIn, ensureAccountMonths, readAccountEngagement } from './account-rollups.ts';
import { engagementCounts, engagementTotals, ensureRollups } from './rollups.ts';
import { iso, num, rowsOf } from './report-sql.ts';
import type { Range, Row } from './report-sql.ts';

// The shared pieces, for the report modules that import them from here.
export { accountProspects, accountsOfProspects, iso, num, rowsOf } from './report-sql.ts';
export type { Range, Row } from './report-sql.ts';

/**
 * The attribution queries (docs/reports.md). Everything is computed from the stored facts at read
 * time — engagement events, opportunities, stage history — so a change of the window or of the
 * selected stages applies to the past at once, and there is no second copy to keep in step.
 */

/** A timestamp column that is never null. */
const isoAt = (v: unknown) => new Date(v as string).toISOString();

/**
 * An open opportunity (alias `o`): not closed in the CRM. A revenue file import gives no closed flag,
 * only the stage's text, so a row without a catalogue stage whose stage reads "Closed …" is closed.
 */
export const openOpportunity = sql`(not o.is_closed and not (o.stage_id is null and o.stage ilike 'closed%'))`;

/** A company website's bare domain (no scheme, `www`, port or path), as `accountProspects` compares it. */
export const websiteDomain = (website: SQL) =>
  sql`lower(regexp_replace(regexp_replace(${website}, '^[a-z][a-z0-9+.-]*://', '', 'i'), '^www[0-9]*[.]|[/:?#].*$', '', 'g'))`;

/**
 * The prospects of one account (the stored ties, through their `(client_id, company_id)` index). An
 * attribution asks this for one opportunity's account at a time.
 */
export function oneAccountProspects(clientId: string, companyId: SQL): SQL {
  return sql`(
    select pt.prospect_id from prospect_account_ties pt
     where pt.client_id = ${clientId} and pt.company_id = ${companyId}
  )`;
}

/** Engagement events of an account's prospects in [lo, hi), as a subquery over `e`. */
export function accountEvents(clientId: string, companyId: SQL, lo: SQL, hi: SQL): SQL {
  return sql`from ${oneAccountProspects(clientId, companyId)} ap
      join targets t on t.prospect_id = ap.prospect_id and t.client_id = ${clientId}
      join engagement_events e on e.target_id = t.id and e.client_id = ${clientId}
     where e.occurred_at >= ${lo} and e.occurred_at < ${hi}`;
}

export const windowOf = (days: number) => sql`make_interval(days => ${days})`;
/**
 * An opportunity's creation moment is the CRM's. A revenue file import gives none (when Rally stored
 * the row says nothing of the deal), so such rows count only by their close date.
 */
export const createdAt = sql`o.crm_created_at`;
/** When a won opportunity closed: the end of its close date, else its last change. */
export const closedAt = sql`coalesce((o.close_date + 1)::timestamptz, o.crm_updated_at, o.updated_at)`;

/**
 * One opportunity with its attribution: the rows of the opportunity report and its exports. The
 * attribution is the stored one (attribution.ts), which the service refreshes before it reads.
 */
function opportunityRows(clientId: string): SQL {
  return sql`select o.id, o.name, o.account_name, o.company_id, o.amount_cents, o.currency,
           coalesce(s.label, o.stage) as stage, s.sort_order as stage_order, o.is_closed, o.is_won,
           ${createdAt} as created_at, o.close_date::text as close_date, o.close_date as close_day,
           a.generated_at as generated_engaged_at, a.generated_prospects,
           (o.is_won and a.influenced_prospects > 0) as influenced, a.influenced_prospects
      from opportunities o
      left join crm_stages s on s.id = o.stage_id
      left join opportunity_attribution a on a.opportunity_id = o.id
     where o.client_id = ${clientId} and not o.is_deleted`;
}

export type OpportunityRow = {
  id: string;
  name: string;
  account_name: string;
  company_id: string | null;
  amount_cents: number;
  currency: string;
  stage: string;
  is_closed: boolean;
  is_won: boolean;
  created_at: string | null;
  close_date: string | null;
  generated_engaged_at: string | null;
  influenced: boolean;
  engaged_prospects: number;
};

function toOpportunity(r: Row): OpportunityRow {
  return {
    id: String(r.id),
    name: String(r.name),
    account_name: String(r.account_name),
    company_id: (r.company_id as string | null) ?? null,
    amount_cents: num(r.amount_cents),
    currency: String(r.currency),
    stage: String(r.stage),
    is_closed: Boolean(r.is_closed),
    is_won: Boolean(r.is_won),
    created_at: iso(r.created_at),
    close_date: (r.close_date as string | null) ?? null,
    generated_engaged_at: iso(r.generated_engaged_at),
    influenced: Boolean(r.influenced),
    engaged_prospects: Math.max(num(r.generated_prospects), num(r.influenced_prospects)),
  };
}

export type OpportunityFilter = 'all' | 'generated' | 'influenced' | 'open' | 'won' | 'lost';

const FILTERS: Record<OpportunityFilter, SQL> = {
  all: sql`true`,
  generated: sql`generated_engaged_at is not null`,
  influenced: sql`influenced`,
  open: sql`not is_closed`,
  won: sql`is_won`,
  lost: sql`is_closed and not is_won`,
};

/**
 * Opportunities of a range: created in it, or (won ones) closed in it, so the revenue of a period is
 * all there. Newest first.
 */
function opportunitiesWhere(range: Range, filter: OpportunityFilter | undefined): SQL {
  return sql`((created_at >= ${range.from} and created_at < ${range.to})
      or (is_won and close_day >= ${range.from}::date and close_day < ${range.to}::date))
     and ${FILTERS[filter ?? 'all']}`;
}

/** The filters that need no attribution, on the opportunity's own columns (alias `o`). */
const PLAIN_FILTERS: Partial<Record<OpportunityFilter, SQL>> = {
  all: sql`true`,
  open: sql`not o.is_closed`,
  won: sql`o.is_won`,
  lost: sql`o.is_closed and not o.is_won`,
};

/**
 * The report's column sorts (issue 42 item 11) on the rows of opportunityRows (alias `x`), each with
 * the order it takes when none is asked for. A stage sorts in its pipeline's order; attribution puts
 * generated and influenced first. Empty values go last either way (but see created_at below); the
 * id breaks ties.
 */
const OPPORTUNITY_ORDER: Record<OpportunityReportSort, { keys: SQL[]; order: 'asc' | 'desc' }> = {
  created_at: { keys: [sql`x.created_at`], order: 'desc' },
  name: { keys: [sql`lower(x.name)`, sql`lower(x.account_name)`], order: 'asc' },
  stage: { keys: [sql`x.stage_order`, sql`lower(x.stage)`], order: 'asc' },
  attribution: {
    keys: [sql`((x.generated_engaged_at is not null)::int * 2 + (x.influenced)::int)`, sql`x.created_at`],
    order: 'desc',
  },
  amount: { keys: [sql`x.amount_cents`], order: 'desc' },
};

function opportunityOrder(sort: OpportunityReportSort, order: 'asc' | 'desc' | undefined): SQL {
  const spec = OPPORTUNITY_ORDER[sort];
  const asc = (order ?? spec.order) === 'asc';
  // Newest first keeps PostgreSQL's own null order (no creation date first), as the export pages.
  const dir =
    sort === 'created_at' ? (asc ? sql`asc` : sql`desc`) : asc ? sql`asc nulls last` : sql`desc nulls last`;
  return sql.join([...spec.keys.map((k) => sql`${k} ${dir}`), sql`x.id`], sql`, `);
}

export async function opportunitiesIn(
  db: Db,
  clientId: string,
  range: Range,
  opts: {
    filter?: OpportunityFilter;
    limit: number;
    offset?: number;
    sort?: OpportunityReportSort;
    order?: 'asc' | 'desc' | undefined;
  },
): Promise<{ items: OpportunityRow[]; total: number }> {
  const limit = opts.limit;
  const offset = opts.offset ?? 0;
  const sort = opts.sort ?? 'created_at';
  // Newest first (the default) pages on the opportunity's own columns below; another column's order
  // reads the attributed rows of the range, as the generated and influenced filters already do.
  const newestFirst = sort === 'created_at' && (opts.order ?? 'desc') === 'desc';
  const plain = newestFirst ? PLAIN_FILTERS[opts.filter ?? 'all'] : undefined;
  // When the filter needs no attribution, the page is chosen first and only its rows are
  // attributed: an attribution reads the account's engagement, which a page of 50 can afford and
  // the tens of thousands of opportunities of a range cannot. The page's ids go in as an array and
  // nothing joins back to the page: joined, the planner compared every opportunity of the client
  // with every id of the page (20 million comparisons for a page of 2,000 among 10,000; a minute on
  // a table just filled, whose statistics said one row).
  const result = plain
    ? await db.execute(sql`
        with page as (
          select o.id, count(*) over () as total
            from opportunities o
           where o.client_id = ${clientId} and not o.is_deleted
             and ((${createdAt} >= ${range.from} and ${createdAt} < ${range.to})
               or (o.is_won and o.close_date >= ${range.from}::date and o.close_date < ${range.to}::date))
             and ${plain}
           order by ${createdAt} desc, o.id
           limit ${limit} offset ${offset}
        )
        select x.*, (select total from page limit 1) as total
          from (${opportunityRows(clientId)} and o.id = any(array(select id from page))) x
         order by x.created_at desc, x.id`)
    : await db.execute(sql`
        select x.*, count(*) over () as total
          from (${opportunityRows(clientId)}) x
         where ${opportunitiesWhere(range, opts.filter)}
         order by ${opportunityOrder(sort, opts.order)}
         limit ${limit} offset ${offset}`);
  const rows = rowsOf(result);
  return { items: rows.map(toOpportunity), total: num(rows[0]?.total) };
}

/**
 * The same rows in the same order (newest first), page by page for an export: each page starts
 * after the last row of the one before (created_at desc nulls first, then id), so every page costs
 * the same however deep the export goes, and memory holds one page.
 *
 * A page's opportunities are chosen on their own columns first, and only they are attributed; the
 * attribution-based filters (generated, influenced) are applied to them after. Attributing the whole
 * range to sort it and keep 2,000 made every page cost the whole range: quadratic in its size.
 */
export async function* opportunityPages(
  db: Db,
  clientId: string,
  range: Range,
  filter: OpportunityFilter,
  pageSize = 2_000,
): AsyncGenerator<OpportunityRow[]> {
  const plain = PLAIN_FILTERS[filter] ?? sql`true`;
  let after: { created: string | null; id: string } | null = null;
  for (;;) {
    const from: { created: string | null; id: string } | null = after;
    const next =
      from === null
        ? sql`true`
        : from.created === null
          ? sql`(${createdAt} is not null or o.id > ${from.id}::uuid)`
          : // The bound `<=` alone is what the (client_id, crm_created_at) index can start from; the
            // `or` beside it is only a filter. Without the bound an ordered scan read the index from
            // the newest row on every page: 120 ms a page halfway through 1,000,000 rows, against 1 ms.
            sql`${createdAt} <= ${from.created}::timestamptz
                and (${createdAt} < ${from.created}::timestamptz or (${createdAt} = ${from.created}::timestamptz and o.id > ${from.id}::uuid))`;
    const rows = rowsOf(
      await db.execute(sql`
        with page as (
          select o.id
            from opportunities o
           where o.client_id = ${clientId} and not o.is_deleted
             and ((${createdAt} >= ${range.from} and ${createdAt} < ${range.to})
               or (o.is_won and o.close_date >= ${range.from}::date and o.close_date < ${range.to}::date))
             and ${plain} and ${next}
           order by ${createdAt} desc, o.id
           limit ${pageSize}
        )
        select x.*, (extract(epoch from x.created_at) * 1000000)::bigint::text as created_us,
               (${FILTERS[filter]}) as keep
          from (${opportunityRows(clientId)} and o.id = any(array(select id from page))) x
         order by x.created_at desc, x.id`),
    );
    const kept = rows.filter((r) => r.keep === true);
    if (kept.length) yield kept.map(toOpportunity);
    const last = rows.at(-1);
    if (!last || rows.length < pageSize) return;
    after = { created: microsIso(last.created_us), id: String(last.id) };
  }
}

/** A timestamp at the database's microsecond precision (a JavaScript Date keeps milliseconds). */
function microsIso(us: unknown): string | null {
  if (us === null || us === undefined) return null;
  const n = BigInt(String(us));
  const ms = n / 1000n;
  const rest = String(n % 1000n).padStart(3, '0');
  return new Date(Number(ms)).toISOString().replace('Z', `${rest}Z`);
}

export async function opportunityById(
  db: Db,
  clientId: string,
  opportunityId: string,
): Promise<OpportunityRow | null> {
  const result = await db.execute(sql`
    select x.* from (${opportunityRows(clientId)}) x where x.id = ${opportunityId}`);
  const row = rowsOf(result)[0];
  return row ? toOpportunity(row) : null;
}

/** The client's most used currency: the reports sum amounts in it and count the others apart. */
export async function mainCurrency(db: Db, clientId: string): Promise<string> {
  // The client's live opportunities per currency, kept by triggers (migration 0078): counting them
  // here was a scan of every opportunity of the client at every call.
  const result = await db.execute(sql`
    select currency from opportunity_currency_counts where client_id = ${clientId} and n > 0
     order by n desc, currency limit 1`);
  return String(rowsOf(result)[0]?.currency ?? 'USD');
}

export type StageMoveRow = {
  opportunity_id: string;
  name: string;
  account_name: string;
  amount_cents: number;
  currency: string;
  from_stage: string;
  to_stage: string;
  moved_at: string;
  engaged_at: string;
};

/**
 * The moves of `progressedMoves` (aliases m, fs, ts, and o when asked): the engaged moves come from the stored
 * attribution (attribution.ts), with their stages; which stages count is applied here, so choosing
 * other stages needs no recomputation. Only the stage catalogue is joined, so a range's count reads
 * the attribution's covering index alone (migration 0026).
 */
function progressedFrom(
  clientId: string,
  range: Range,
  chosenStageIds: string[],
  withOpportunity = false,
): SQL {
  const into = chosenStageIds.length
    ? sql`ts.id in (${sql.join(
        chosenStageIds.map((id) => sql`${id}::uuid`),
        sql`, `,
      )})`
    : sql`not (ts.is_closed and not ts.is_won)`;
  return sql`from stage_move_attribution m
      join crm_stages fs on fs.id = m.from_stage_id
      join crm_stages ts on ts.id = m.to_stage_id
      ${withOpportunity ? sql`join opportunities o on o.id = m.opportunity_id and not o.is_deleted` : sql``}
     where m.client_id = ${clientId} and m.engaged_at is not null
       and m.changed_at >= ${range.from} and m.changed_at < ${range.to}
       and ts.sort_order > fs.sort_order and ts.integration_id = fs.integration_id
       and ${into}`;
}

/** The columns of a counted move (aliases m, fs, ts, o). */
const moveColumns = sql`o.id as opportunity_id, o.name, o.account_name, o.amount_cents, o.currency,
  fs.label as from_stage, ts.label as to_stage, m.changed_at as moved_at, m.engaged_at`;

/**
 * Stage moves in the range that count as progress: forward in the pipeline (a higher stage order),
 * into a selected or valuable stage (any later stage but closed-lost when none is chosen), with an
 * engagement of the account within the window before the move. First entries (creation) are not moves.
 */
export async function progressedMoves(
  db: Db,
  clientId: string,
  range: Range,
  chosenStageIds: string[],
  page: { limit: number; offset: number; sort?: ProgressedSort | undefined; order?: SortOrder | undefined },
): Promise<{ items: StageMoveRow[]; total: number }> {
  // Newest first, the page is chosen on the stored rows and only its 50 are joined to their
  // opportunities; a sort by another column joins them all and numbers the rows (rn) in its order.
  const sorted = page.sort ? orderBySort(PROGRESSED_ORDER[page.sort], page.order, sql`m.history_id`) : null;
  const result = await db.execute(sql`
    with page as (
      select m.history_id, m.opportunity_id, m.changed_at, m.engaged_at, fs.label as from_label,
             ts.label as to_label, count(*) over () as total${sorted ? sql`, row_number() over (order by ${sorted}) as rn` : sql``}
        ${progressedFrom(clientId, range, chosenStageIds, sorted !== null)}
       order by ${sorted ? sql`rn` : sql`m.changed_at desc, m.history_id`}
       limit ${page.limit} offset ${page.offset}
    )
    select o.id as opportunity_id, o.name, o.account_name, o.amount_cents, o.currency,
           p.from_label as from_stage, p.to_label as to_stage, p.changed_at as moved_at, p.engaged_at, p.total
      from page p join opportunities o on o.id = p.opportunity_id
     order by ${sorted ? sql`p.rn` : sql`p.changed_at desc, p.history_id`}`);
  const rows = rowsOf(result);
  // Past the last page there is no row to carry the number.
  const total =
    rows.length || page.offset === 0
      ? num(rows[0]?.total)
      : num(
          rowsOf(
            await db.execute(sql`select count(*) as n ${progressedFrom(clientId, range, chosenStageIds)}`),
          )[0]?.n,
        );
  return { items: rows.map(toMove), total };
}

/** The column sorts of pipeline/progressed (aliases m, fs, ts, o); a move by its stage's place. */
const PROGRESSED_ORDER: Record<ProgressedSort, SortKeys> = {
  name: { keys: [sql`lower(o.name)`, sql`lower(o.account_name)`], order: 'asc' },
  move: { keys: [sql`ts.sort_order`, sql`lower(ts.label)`], order: 'asc' },
  moved_at: { keys: [sql`m.changed_at`], order: 'desc' },
  engaged_at: { keys: [sql`m.engaged_at`], order: 'desc' },
  amount: { keys: [sql`o.amount_cents`], order: 'desc' },
};

const toMove = (r: Row): StageMoveRow => ({
  opportunity_id: String(r.opportunity_id),
  name: String(r.name),
  account_name: String(r.account_name),
  amount_cents: num(r.amount_cents),
  currency: String(r.currency),
  from_stage: String(r.from_stage),
  to_stage: String(r.to_stage),
  moved_at: isoAt(r.moved_at),
  engaged_at: isoAt(r.engaged_at),
});

/**
 * Every counted move of the range in the same order, a page at a time (for the export): each page
 * starts after the last row of the one before, so a deep page costs what the first does.
 */
export async function* progressedPages(
  db: Db,
  clientId: string,
  range: Range,
  chosenStageIds: string[],
  pageSize = 2_000,
): AsyncGenerator<StageMoveRow[]> {
  let after: { us: string; id: string } | null = null;
  for (;;) {
    const from: { us: string; id: string } | null = after;
    const next = from
      ? // The `<=` bound lets an index start at the cursor (see opportunityPages).
        sql`and m.changed_at <= ${microsIso(from.us)}::timestamptz
             and (m.changed_at < ${microsIso(from.us)}::timestamptz
             or (m.changed_at = ${microsIso(from.us)}::timestamptz and m.history_id > ${from.id}::uuid))`
      : sql``;
    const rows = rowsOf(
      await db.execute(sql`
        select ${moveColumns}, m.history_id,
               (extract(epoch from m.changed_at) * 1000000)::bigint::text as changed_us
          ${progressedFrom(clientId, range, chosenStageIds, true)} ${next}
         order by m.changed_at desc, m.history_id
         limit ${pageSize}`),
    );
    if (rows.length) yield rows.map(toMove);
    const last = rows.at(-1);
    if (!last || rows.length < pageSize) return;
    after = { us: String(last.changed_us), id: String(last.history_id) };
  }
}

/**
 * A page of the generated opportunities of a range (created in it), newest first. Their number comes
 * from `generatedTotals`: counted here over the page's query it cost a scan of the range per page.
 */
export async function generatedPage(
  db: Db,
  clientId: string,
  range: Range,
  page: {
    limit: number;
    offset: number;
    sort?: OpportunityReportSort | undefined;
    order?: SortOrder | undefined;
  },
): Promise<OpportunityRow[]> {
  // The opportunity report's column sorts; newest first (the default) is `x.created_at desc, x.id`.
  const rows = rowsOf(
    await db.execute(sql`
      select x.*
        from (${opportunityRows(clientId)}
              and ${createdAt} >= ${range.from} and ${createdAt} < ${range.to}
              and a.generated_at is not null) x
       order by ${opportunityOrder(page.sort ?? 'created_at', page.order)}
       limit ${page.limit} offset ${page.offset}`),
  );
  return rows.map(toOpportunity);
}

/** Every generated opportunity of the range, newest first, a page at a time (for the export). */
export async function* generatedPages(
  db: Db,
  clientId: string,
  range: Range,
  pageSize = 2_000,
): AsyncGenerator<OpportunityRow[]> {
  let after: { us: string; id: string } | null = null;
  for (;;) {
    const from: { us: string; id: string } | null = after;
    const next = from
      ? // The `<=` bound lets an index start at the cursor (see opportunityPages).
        sql`and ${createdAt} <= ${microsIso(from.us)}::timestamptz
             and (${createdAt} < ${microsIso(from.us)}::timestamptz
             or (${createdAt} = ${microsIso(from.us)}::timestamptz and o.id > ${from.id}::uuid))`
      : sql``;
    const rows = rowsOf(
      await db.execute(sql`
        select x.*, (extract(epoch from x.created_at) * 1000000)::bigint::text as created_us
          from (${opportunityRows(clientId)}
                and ${createdAt} >= ${range.from} and ${createdAt} < ${range.to}
                and a.generated_at is not null ${next}) x
         order by x.created_at desc, x.id
         limit ${pageSize}`),
    );
    if (rows.length) yield rows.map(toOpportunity);
    const last = rows.at(-1);
    if (!last || rows.length < pageSize) return;
    after = { us: String(last.created_us), id: String(last.id) };
  }
}

/**
 * The generated pipeline of a range: how many opportunities in all currencies, and in a currency
 * (given to the function it returns) their amount in all and per month of creation (UTC).
 */
export async function generatedTotals(db: Db, clientId: string, range: Range) {
  const rows = rowsOf(
    await db.execute(sql`
      select o.currency, to_char(${createdAt} at time zone 'UTC', 'YYYY-MM') as month, count(*) as n,
             coalesce(sum(o.amount_cents), 0) as cents
        from opportunities o
        join opportunity_attribution a on a.opportunity_id = o.id and a.generated_at is not null
       where o.client_id = ${clientId} and not o.is_deleted
         and ${createdAt} >= ${range.from} and ${createdAt} < ${range.to}
       group by 1, 2 order by 2`),
  );
  // The client's main currency is asked for beside this, so its part is picked when that is known.
  return (currency: string) => {
    const byMonth = rows
      .filter((r) => r.currency === currency)
      .map((r) => ({ month: String(r.month), opportunities: num(r.n), amount_cents: num(r.cents) }));
    return {
      total: rows.reduce((n, r) => n + num(r.n), 0),
      amount_cents: byMonth.reduce((n, m) => n + m.amount_cents, 0),
      by_month: byMonth,
    };
  };
}

/**
 * The opportunity totals of a range in one currency (the summary's): created in the range, generated
 * among them, won (closed) in it, influenced among those, and the opportunities of the range in other
 * currencies; then the opportunities progressed in it (once each, however often they moved), unless
 * `chosenStageIds` is null (0 then: not asked).
 */
export async function opportunityTotals(
  db: Db,
  clientId: string,
  range: Range,
  currency: string,
  chosenStageIds: string[] | null,
) {
  const createdIn = sql`(${createdAt} >= ${range.from} and ${createdAt} < ${range.to})`;
  const wonIn = sql`(o.is_won and o.close_date >= ${range.from}::date and o.close_date < ${range.to}::date)`;
  const mine = sql`o.currency = ${currency}`;
  // Without parallel workers: the summary runs this beside its engagement statement, and each
  // worker built the moves' hash again (373 → 223 ms p50 without them at the reports bench's size,
  // on a quiet two-core machine).
  const result = await db.transaction(async (tx) => {
    await tx.execute(sql`set local max_parallel_workers_per_gather = 0`);
    return tx.execute(sql`
    with o as (
      select o.id, o.currency, o.amount_cents, o.crm_created_at, o.close_date, o.is_won, a.generated_at,
             a.influenced_prospects
        from opportunities o
        left join opportunity_attribution a on a.opportunity_id = o.id
       where o.client_id = ${clientId} and not o.is_deleted and (${createdIn} or ${wonIn})
    ),
    p as (
      -- A semi-join: a hash of the progress moves' opportunities, not a sort of the moves by it.
      ${
        chosenStageIds
          ? sql`select o.id, o.amount_cents from opportunities o
       where o.client_id = ${clientId} and not o.is_deleted and ${mine}
         and o.id in (select m.opportunity_id ${progressedFrom(clientId, range, chosenStageIds)})`
          : sql`select null::uuid as id, 0::bigint as amount_cents where false`
      }
    )
    select count(*) filter (where not ${mine}) as other,
           count(*) filter (where ${mine} and ${createdIn}) as created,
           coalesce(sum(o.amount_cents) filter (where ${mine} and ${createdIn}), 0) as created_cents,
           count(*) filter (where ${mine} and ${createdIn} and o.generated_at is not null) as generated,
           coalesce(sum(o.amount_cents) filter (where ${mine} and ${createdIn} and o.generated_at is not null), 0)
             as generated_cents,
           count(*) filter (where ${mine} and ${wonIn}) as won,
           coalesce(sum(o.amount_cents) filter (where ${mine} and ${wonIn}), 0) as won_cents,
           count(*) filter (where ${mine} and ${wonIn} and o.influenced_prospects > 0) as influenced,
           coalesce(sum(o.amount_cents) filter (where ${mine} and ${wonIn} and o.influenced_prospects > 0), 0)
             as influenced_cents,
           (select count(*) from p) as progressed,
           (select coalesce(sum(amount_cents), 0) from p) as progressed_cents
      from o`);
  });
  const r = rowsOf(result)[0] ?? {};
  return {
    other_currency_opportunities: num(r.other),
    opportunities_created: num(r.created),
    pipeline_created_cents: num(r.created_cents),
    generated: num(r.generated),
    pipeline_generated_cents: num(r.generated_cents),
    progressed: num(r.progressed),
    pipeline_progressed_cents: num(r.progressed_cents),
    won: num(r.won),
    revenue_won_cents: num(r.won_cents),
    influenced: num(r.influenced),
    revenue_influenced_cents: num(r.influenced_cents),
  };
}

/**
 * Won opportunities of the range (created or closed in it) in one currency, summed per month of their
 * close date, for the close dates in [months.from, months.to) (the whole months the range touches).
 */
export async function wonByMonth(
  db: Db,
  clientId: string,
  range: Range,
  currency: string,
  months: { from: string; to: string },
) {
  const result = await db.execute(sql`
    select to_char(o.close_date, 'YYYY-MM') as month, count(*) as won,
           coalesce(sum(o.amount_cents), 0) as won_cents,
           count(*) filter (where a.influenced_prospects > 0) as influenced,
           coalesce(sum(o.amount_cents) filter (where a.influenced_prospects > 0), 0) as influenced_cents
      from opportunities o
      left join opportunity_attribution a on a.opportunity_id = o.id
     where o.client_id = ${clientId} and not o.is_deleted and o.is_won and o.currency = ${currency}
       and o.close_date >= ${months.from}::date and o.close_date < ${months.to}::date
       and ((${createdAt} >= ${range.from} and ${createdAt} < ${range.to})
         or (o.close_date >= ${range.from}::date and o.close_date < ${range.to}::date))
     group by 1`);
  return rowsOf(result).map((r) => ({
    month: String(r.month),
    won: num(r.won),
    revenue_won_cents: num(r.won_cents),
    influenced: num(r.influenced),
    revenue_influenced_cents: num(r.influenced_cents),
  }));
}

/** Engagement of the range: events by type, accounts engaged, new superprospects. */
export async function engagementIn(db: Db, clientId: string, range: Range) {
  // The event counts come from the daily rollups (rollups.ts), the accounts from the account
  // rollups (account-rollups.ts): both exact like the raw count. The day the range starts in is
  // rolled up too, for its counts by hour.
  await ensureRollups(db, clientId, range, { cutDay: true });
  await ensureAccountMonths(db, clientId, range);
  const result = await readAccountEngagement(
    db,
    sql`
    with ${engagementTotals(clientId, range)}, ${accountsEngagedIn(clientId, range)}
    select
      (select coalesce(sum(n), 0) from type_counts where type = 'impression') as impressions,
      (select coalesce(sum(n), 0) from type_counts where type = 'click') as clicks,
      (select coalesce(sum(n), 0) from type_counts where type = 'view') as views,
      (select count(*) from accounts_engaged_in) as engaged_accounts,
      (select count(*) from targets t
        where t.client_id = ${clientId}
          and t.super_date >= ${range.from} and t.super_date < ${range.to}) as new_superprospects`,
  );
  const r = rowsOf(result)[0] ?? {};
  return {
    impressions: num(r.impressions),
    clicks: num(r.clicks),
    views: num(r.views),
    engaged_accounts: num(r.engaged_accounts),
    new_superprospects: num(r.new_superprospects),
  };
}

/** The prospects of an opportunity's account engaged within the window before its moment. */
export async function engagedProspects(db: Db, clientId: string, windowDays: number, opportunityId: string) {
  const w = windowOf(windowDays);
  // The account's prospects through its own indexes (oneAccountProspects), not the client's mapping.
  const result = await db.execute(sql`
    select p.id as prospect_id, trim(p.first_name || ' ' || p.last_name) as name, p.email, p.title,
           count(*) filter (where e.type = 'impression') as impressions,
           count(*) filter (where e.type = 'click') as clicks,
           count(*) filter (where e.type = 'view') as views,
           min(e.occurred_at) as first_engaged_at, max(e.occurred_at) as last_engaged_at
      from opportunities o
      cross join lateral ${oneAccountProspects(clientId, sql`o.company_id`)} ap
      join prospects p on p.id = ap.prospect_id
      join targets t on t.prospect_id = p.id and t.client_id = ${clientId}
      join engagement_events e on e.target_id = t.id and e.client_id = ${clientId}
     where o.id = ${opportunityId} and o.client_id = ${clientId}
       and e.occurred_at >= coalesce(${createdAt}, ${closedAt}) - ${w}
       and e.occurred_at < case when o.is_won then ${closedAt} else now() end
     group by p.id
     order by min(e.occurred_at), p.id`);
  return rowsOf(result).map((r) => ({
    prospect_id: String(r.prospect_id),
    name: String(r.name),
    email: (r.email as string | null) ?? null,
    title: String(r.title ?? ''),
    impressions: num(r.impressions),
    clicks: num(r.clicks),
    views: num(r.views),
    first_engaged_at: isoAt(r.first_engaged_at),
    last_engaged_at: isoAt(r.last_engaged_at),
  }));
}

export async function stageHistoryOf(db: Db, clientId: string, opportunityId: string) {
  const result = await db.execute(sql`
    select coalesce(fs.label, h.from_stage) as from_stage, coalesce(ts.label, h.to_stage) as to_stage,
           h.changed_at
      from opportunity_stage_history h
      left join crm_stages fs on fs.id = h.from_stage_id
      left join crm_stages ts on ts.id = h.to_stage_id
     where h.client_id = ${clientId} and h.opportunity_id = ${opportunityId}
     order by h.changed_at, h.id`);
  return rowsOf(result).map((r) => ({
    from_stage: (r.from_stage as string | null) ?? null,
    to_stage: String(r.to_stage),
    changed_at: isoAt(r.changed_at),
  }));
}

const TRUNC = { daily: 'day', weekly: 'week', monthly: 'month' } as const;
export type View = keyof typeof TRUNC;

/**
 * Engagement per period (UTC; weeks start on Monday), every period of the range listed, empty ones
 * as zeros, so a chart's axis has no holes.
 */
export async function performanceByDate(db: Db, clientId: string, range: Range, view: View) {
  const unit = sql.raw(`'${TRUNC[view]}'`);
  const step = sql.raw(`'1 ${TRUNC[view]}'`);
  // Counted from the daily rollups (rollups.ts): the same numbers as the raw events, in milliseconds.
  await ensureRollups(db, clientId, range);
  const result = await db.execute(sql`
    with ${engagementCounts(clientId, range)},
    periods as (
      select generate_series(
        date_trunc(${unit}, ${range.from}::timestamptz at time zone 'UTC'),
        date_trunc(${unit}, (${range.to}::timestamptz - interval '1 second') at time zone 'UTC'),
        ${step}::interval) as start
    ),
    events as (
      select date_trunc(${unit}, c.day::timestamp) as start,
             sum(c.n) filter (where c.type = 'impression') as impressions,
             sum(c.n) filter (where c.type = 'click') as clicks,
             sum(c.n) filter (where c.type = 'view') as views
        from counts c
       group by 1
    ),
    supers as (
      select date_trunc(${unit}, t.super_date at time zone 'UTC') as start, count(*) as n
        from targets t
       where t.client_id = ${clientId} and t.super_date >= ${range.from} and t.super_date < ${range.to}
       group by 1
    )
    select to_char(p.start, 'YYYY-MM-DD') as date, coalesce(e.impressions, 0) as impressions,
           coalesce(e.clicks, 0) as clicks, coalesce(e.views, 0) as views, coalesce(s.n, 0) as new_superprospects
      from periods p
      left join events e on e.start = p.start
      left join supers s on s.start = p.start
     order by p.start`);
  return rowsOf(result).map((r) => ({
    date: String(r.date),
    impressions: num(r.impressions),
    clicks: num(r.clicks),
    views: num(r.views),
    new_superprospects: num(r.new_superprospects),
  }));
}

/** Superprospects billed whose super date is in the range, and their cost (invoice lines). */
export async function superprospectSpend(db: Db, clientId: string, range: Range) {
  const result = await db.execute(sql`
    select count(*) as n, coalesce(sum(l.amount_cents), 0) as cents, min(i.currency) as currency
      from invoice_lines l
      join invoices i on i.id = l.invoice_id
     where l.client_id = ${clientId} and l.super_date >= ${range.from} and l.super_date < ${range.to}`);
  const r = rowsOf(result)[0] ?? {};
  return { count: num(r.n), cents: num(r.cents), currency: String(r.currency ?? 'usd').toUpperCase() };
}
