import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { Prospect, ProspectCadence, ProspectSort, SortOrder } from '@rally/shared/schemas/prospects';
import type { Db } from '../../db/client.ts';
import { SQL_TYPES } from './cursor.ts';
import type { KeyType } from './cursor.ts';

/**
 * The SQL of the prospects list. Each sort order is one or two "phases", each a keyset scan that an
 * index of migrations 0004/0005 serves in order (ARCHITECTURE.md §8: fast at 1,000,000 targets), so
 * the cost of a page does not grow with its depth:
 *
 * - name, title: prospects by (client, lower(name…), id).
 * - email, company: rows with a value by (client, lower(value), id), then rows without one by id,
 *   so blanks come last in either direction.
 * - cadences: prospects by (how many cadences, lower(name…), id); no index serves the count, so a
 *   page is a top-N of the client's (filtered) prospects.
 * - impressions, super_date: driven by the targets index on (client, impressions | super_date, id);
 *   a prospect stands where its best matching cadence entry (most impressions, latest super_date)
 *   stands, the others are skipped by an anti-join on the prospect's few targets. Under super_date,
 *   prospects never super follow, by name.
 *
 * Filters on cadence, rep and super apply to the same cadence entry (an EXISTS on the prospect's
 * targets); search is a pg_trgm ILIKE over name, e-mail and title, or a matching company.
 *
 * Values come back as text (ids, keys) or epoch milliseconds: the two drivers parse uuids and
 * timestamps differently, and a cursor must carry a timestamp to the microsecond.
 */

export type ProspectFilters = {
  clientId: string;
  search?: string | undefined;
  cadenceId?: number | undefined;
  /** Entries of any of these reps (the rep filter, or the signed-in user's reps for `mine`). */
  salesRepIds?: string[] | undefined;
  isSuper?: boolean | undefined;
  isActive?: boolean | undefined;
};

type Key = { expr: SQL; type: KeyType };
type Phase = {
  from: SQL;
  where: SQL[];
  keys: Key[];
  dir: SortOrder;
  /** Leading keys on the outer table of a join, repeated as a range its index can scan. */
  prefix?: number;
  prospectId: SQL;
  targetId: SQL | null;
  /**
   * Disjoint parts, each scanned (and limited) on its own partial index and merged: a scan of one
   * index filtered by the part's condition would skip the other part's rows first.
   */
  parts?: SQL[];
};

export type PageRow = { prospectId: string; targetId: string | null; phase: number; keys: string[] };

/** pg_trgm indexes three-character runs: a shorter search cannot use the trigram indexes. */
const narrowsByTrigram = (search: string | undefined) => (search?.trim().length ?? 0) >= 3;
/** How many matching companies are looked up by id; more than that and the search is broad anyway. */
const COMPANY_IDS_MAX = 500;
/**
 * How many prospects a search may match and still be listed (their ids then filter the sorted walk
 * as one hashed constant) rather than checked prospect by prospect along the walk. Listing more costs
 * more than it saves: 10,000 made a cadence + name search faster (178 → 107 ms) but a broad one
 * slower (47 → 108 ms) on bench/prospects.
 */
const SEARCH_LISTED = 1000;

/** What the list needs of a database or a transaction: raw statements. */
type Queries = Pick<Db, 'execute'>;

function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

/** `%text%` for ILIKE, with the pattern characters of the text matched literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The indexed search text of a prospect (prospects_search_cadences_idx: keep the two identical). */
const searchText = (p: string) =>
  sql.raw(
    `(${p}.first_name || ' ' || ${p}.last_name || ' ' || coalesce(${p}.email, '') || ' ' || ${p}.title)`,
  );

const and = (parts: SQL[]) => (parts.length ? sql.join(parts, sql` and `) : sql`true`);

/** Companies whose name matches: their ids when few, else null (use the correlated form). */
async function matchingCompanies(
  db: Queries,
  clientId: string,
  pattern: string,
  max: number,
): Promise<string[] | null> {
  const rows = rowsOf<{ id: string }>(
    await db.execute(sql`
      select id::text as id from companies
      where client_id = ${clientId} and name ilike ${pattern}
      limit ${max + 1}`),
  );
  return rows.length > max ? null : rows.map((r) => r.id);
}

type Context = {
  f: ProspectFilters;
  pattern: string | null;
  /** null: too many companies match to list them. */
  companyIds: string[] | null;
  /** The prospects the search matches, when few enough to list (then sorted, not scanned for). */
  matchIds?: string[];
};

/**
 * Prospect-level conditions: tenant, active, search. `matchOn` is the column the listed matches of a
 * search are checked against: a list driven by cadence entries checks the entry's prospect_id, so
 * its ordered index walk filters by the list (hashed: it is a constant when the plan is made)
 * without fetching every prospect it passes.
 */
function prospectConditions(ctx: Context, p: string, companyName?: string, matchOn = `${p}.id`): SQL[] {
  const { f } = ctx;
  const out: SQL[] = [sql`${sql.raw(p)}.client_id = ${f.clientId}`];
  if (f.isActive !== undefined) out.push(sql`${sql.raw(p)}.is_active = ${f.isActive}`);
  if (ctx.matchIds) {
    out.push(sql`${sql.raw(matchOn)} = any(${`{${ctx.matchIds.join(',')}}`}::uuid[])`);
  } else if (ctx.pattern !== null) {
    const text = sql`${searchText(p)} ilike ${ctx.pattern}`;
    let company: SQL | null;
    if (companyName) company = sql`${sql.raw(companyName)} ilike ${ctx.pattern}`;
    // Too many companies match to list them. The planner hashes the matches of an EXISTS before
    // the first row: quick through the trigram index, but a search under three characters has no
    // trigram and reads every company first (55 ms for "an" on bench/prospects). Then each row's
    // company is looked up as the walk reaches it instead (a scalar subquery is not hashed).
    else if (ctx.companyIds === null && !narrowsByTrigram(ctx.f.search))
      company = sql`(select sc.name from companies sc where sc.id = ${sql.raw(p)}.company_id) ilike ${ctx.pattern}`;
    else if (ctx.companyIds === null)
      company = sql`exists (select 1 from companies sc where sc.id = ${sql.raw(p)}.company_id and sc.name ilike ${ctx.pattern})`;
    else if (ctx.companyIds.length)
      company = sql`${sql.raw(p)}.company_id = any(${`{${ctx.companyIds.join(',')}}`}::uuid[])`;
    else company = null;
    out.push(company ? sql`(${text} or ${company})` : text);
  }
  return out;
}

/** Conditions on a cadence entry `t` from the cadence and rep filters. */
function entryConditions(f: ProspectFilters, t: string): SQL[] {
  const out: SQL[] = [];
  if (f.cadenceId !== undefined) out.push(sql`${sql.raw(t)}.cadence_id = ${f.cadenceId}`);
  if (f.salesRepIds !== undefined)
    out.push(sql`${sql.raw(t)}.sales_rep_id = any(${`{${f.salesRepIds.join(',')}}`}::uuid[])`);
  return out;
}

const hasEntryFilter = (f: ProspectFilters) => f.cadenceId !== undefined || f.salesRepIds !== undefined;

/**
 * The prospect `p` has a cadence entry matching the cadence and rep filters. The cadence is checked
 * on the prospect's own `cadence_ids` (kept by triggers on targets, migration 0028), which its GIN
 * index can intersect with the trigram index of a search; a rep filter still needs the entry.
 */
function entryFilterOnProspect(f: ProspectFilters, p: string): SQL[] {
  return [
    ...(f.cadenceId !== undefined ? [sql`${sql.raw(p)}.cadence_ids @> ${`{${f.cadenceId}}`}::int[]`] : []),
    ...(f.salesRepIds !== undefined ? [entryExists(f, sql.raw(`${p}.id`), false)] : []),
  ];
}

/** The prospect with this id has a cadence entry matching the filters (a super one, if asked). */
function entryExists(f: ProspectFilters, prospectId: SQL, superOnly: boolean): SQL {
  const conds = [
    sql`m.prospect_id = ${prospectId}`,
    ...entryConditions(f, 'm'),
    ...(superOnly ? [sql`m.super_date is not null`] : []),
  ];
  return sql`exists (select 1 from targets m where ${and(conds)})`;
}

/** Cadence-entry conditions of a list driven by prospects. */
function prospectEntryConditions(f: ProspectFilters): SQL[] {
  const id = sql`p.id`;
  if (f.isSuper === true) return [entryExists(f, id, true)];
  if (f.isSuper === false)
    return [...(hasEntryFilter(f) ? [entryExists(f, id, false)] : []), sql`not ${entryExists(f, id, true)}`];
  return hasEntryFilter(f) ? [entryExists(f, id, false)] : [];
}

/**
 * Conditions of a list driven by cadence entries `t` whose prospect stands where its best entry
 * (greatest `key`, then id) stands: that entry matches and no other matching entry is better.
 */
function bestEntryConditions(f: ProspectFilters, key: 'impressions' | 'super_date'): SQL[] {
  const superCond = (t: string) =>
    f.isSuper === true || key === 'super_date'
      ? [sql`${sql.raw(t)}.super_date is not null`]
      : f.isSuper === false
        ? [sql`${sql.raw(t)}.super_date is null`]
        : [];
  const k = sql.raw(key);
  const better = and([
    sql`b.prospect_id = t.prospect_id`,
    ...entryConditions(f, 'b'),
    ...superCond('b'),
    sql`(b.${k}, b.id) > (t.${k}, t.id)`,
  ]);
  return [
    sql`t.client_id = ${f.clientId}`,
    ...entryConditions(f, 't'),
    ...superCond('t'),
    ...(f.isSuper === false && key === 'impressions'
      ? [sql`not ${entryExists(f, sql`t.prospect_id`, true)}`]
      : []),
    sql`not exists (select 1 from targets b where ${better})`,
  ];
}

const p = (column: string): SQL => sql.raw(`p.${column}`);
const byName = (): Key[] => [
  { expr: sql`lower(p.first_name)`, type: 'text' },
  { expr: sql`lower(p.last_name)`, type: 'text' },
  { expr: p('id'), type: 'uuid' },
];

function phasesOf(ctx: Context, sort: ProspectSort, dir: SortOrder): Phase[] {
  const { f } = ctx;
  const prospectsFrom = sql`prospects p`;
  const prospectWhere = [...prospectConditions(ctx, 'p'), ...prospectEntryConditions(f)];
  const prospectPhase = (keys: Key[], extra: SQL[] = [], phaseDir = dir): Phase => ({
    from: prospectsFrom,
    where: [...prospectWhere, ...extra],
    keys,
    dir: phaseDir,
    prospectId: p('id'),
    targetId: null,
  });
  const entriesFrom = sql`targets t join prospects p on p.id = t.prospect_id`;
  switch (sort) {
    case 'name':
      return [prospectPhase(byName())];
    case 'title':
      return [
        prospectPhase([
          { expr: sql`lower(p.title)`, type: 'text' },
          { expr: p('id'), type: 'uuid' },
        ]),
      ];
    case 'email':
      return [
        prospectPhase(
          [
            { expr: sql`lower(p.email)`, type: 'text' },
            { expr: p('id'), type: 'uuid' },
          ],
          [sql`p.email is not null`],
        ),
        prospectPhase([{ expr: p('id'), type: 'uuid' }], [sql`p.email is null`]),
      ];
    case 'company':
      return [
        {
          from: sql`companies c join prospects p on p.company_id = c.id`,
          where: [
            sql`c.client_id = ${f.clientId}`,
            ...prospectConditions(ctx, 'p', 'c.name'),
            ...prospectEntryConditions(f),
          ],
          keys: [
            { expr: sql`lower(c.name)`, type: 'text' },
            { expr: sql`c.id`, type: 'uuid' },
            { expr: p('id'), type: 'uuid' },
          ],
          prefix: 2,
          dir,
          prospectId: p('id'),
          targetId: null,
        },
        prospectPhase([{ expr: p('id'), type: 'uuid' }], [sql`p.company_id is null`]),
      ];
    case 'cadences':
      // By how many cadences the prospect is in, then by name. The count, not the first cadence's
      // name: it is an int on the prospect's own row (cardinality of cadence_ids, kept by triggers),
      // so the keyset needs no join and no aggregate, and "in the most cadences" is the question a
      // list of cadence names answers; sorting by the alphabetically first of several names is not.
      return [prospectPhase([{ expr: sql`cardinality(p.cadence_ids)`, type: 'int' }, ...byName()])];
    case 'impressions':
      return [
        {
          from: entriesFrom,
          where: [
            ...bestEntryConditions(f, 'impressions'),
            ...prospectConditions(ctx, 'p', undefined, 't.prospect_id'),
          ],
          keys: [
            { expr: sql`t.impressions`, type: 'int' },
            { expr: sql`t.id`, type: 'uuid' },
          ],
          dir,
          prospectId: sql`t.prospect_id`,
          targetId: sql`t.id`,
          // targets_impressions_nonsuper_idx and targets_impressions_super_idx. Not with a search:
          // a part with none of its matches would scan its index to the end looking for a first one.
          ...(f.isSuper === undefined && ctx.pattern === null
            ? { parts: [sql`t.super_date is null`, sql`t.super_date is not null`] }
            : {}),
        },
        // Prospects with no cadence entry at all (their cadences were deleted): last, by name.
        {
          from: prospectsFrom,
          where: [
            ...prospectConditions(ctx, 'p'),
            hasEntryFilter(f) || f.isSuper === true
              ? sql`false`
              : sql`not exists (select 1 from targets m where m.prospect_id = p.id)`,
          ],
          keys: byName(),
          dir: 'asc',
          prospectId: p('id'),
          targetId: null,
        },
      ];
    case 'super_date': {
      const supers: Phase = {
        from: entriesFrom,
        where: [
          ...bestEntryConditions(f, 'super_date'),
          ...prospectConditions(ctx, 'p', undefined, 't.prospect_id'),
        ],
        keys: [
          { expr: sql`t.super_date`, type: 'timestamptz' },
          { expr: sql`t.id`, type: 'uuid' },
        ],
        dir,
        prospectId: sql`t.prospect_id`,
        targetId: sql`t.id`,
      };
      // Never super (among the matching entries): after the supers, by name in either direction.
      const others: Phase = {
        from: prospectsFrom,
        where: [
          ...prospectConditions(ctx, 'p'),
          ...(hasEntryFilter(f) ? [entryExists(f, sql`p.id`, false)] : []),
          sql`not ${entryExists(f, sql`p.id`, true)}`,
        ],
        keys: byName(),
        dir: 'asc',
        prospectId: p('id'),
        targetId: null,
      };
      if (f.isSuper === true) return [supers];
      if (f.isSuper === false) return [{ ...supers, where: [sql`false`] }, others];
      return [supers, others];
    }
  }
}

/** How many keys each phase of a sort has, for checking a cursor before it reaches SQL. */
export function phaseKeyTypes(sort: ProspectSort): KeyType[][] {
  const ctx: Context = { f: { clientId: '' }, pattern: null, companyIds: [] };
  return phasesOf(ctx, sort, 'asc').map((ph) => ph.keys.map((k) => k.type));
}

/** `(key, key, …)` and `($1::type, $2::type, …)` for a keyset comparison. */
function row(keys: Key[], values: string[]): { left: SQL; right: SQL } {
  return {
    left: sql`(${sql.join(
      keys.map((k) => k.expr),
      sql`, `,
    )})`,
    right: sql`(${sql.join(
      values.map((v, i) => sql`${v}::${sql.raw(SQL_TYPES[keys[i]?.type ?? 'text'])}`),
      sql`, `,
    )})`,
  };
}

async function runPhase(
  db: Queries,
  phase: Phase,
  index: number,
  after: string[] | null,
  limit: number,
): Promise<PageRow[]> {
  const op = sql.raw(phase.dir === 'asc' ? '>' : '<');
  const where = [...phase.where];
  if (after) {
    const all = row(phase.keys, after);
    where.push(sql`${all.left} ${op} ${all.right}`);
    if (phase.prefix) {
      const lead = row(phase.keys.slice(0, phase.prefix), after.slice(0, phase.prefix));
      where.push(sql`${lead.left} ${sql.raw(phase.dir === 'asc' ? '>=' : '<=')} ${lead.right}`);
    }
  }
  const dir = sql.raw(phase.dir);
  const orderBy = (exprs: SQL[]) =>
    sql.join(
      exprs.map((e) => sql`${e} ${dir}`),
      sql`, `,
    );
  const select = (part: SQL | null) => sql`
    select ${phase.prospectId}::text as pid, ${phase.targetId ?? sql`null`}::text as tid,
      ${sql.join(
        phase.keys.map(
          (k, i) => sql`${k.expr}::text as ${sql.raw(`k${i}`)}, ${k.expr} as ${sql.raw(`o${i}`)}`,
        ),
        sql`, `,
      )}
    from ${phase.from}
    where ${and(part ? [...where, part] : where)}
    order by ${orderBy(phase.keys.map((k) => k.expr))}
    limit ${limit}`;
  const result = await db.execute(
    phase.parts
      ? sql`select * from (${sql.join(
          phase.parts.map((part) => sql`(${select(part)})`),
          sql` union all `,
        )}) parts order by ${orderBy(phase.keys.map((_, i) => sql.raw(`o${i}`)))} limit ${limit}`
      : select(null),
  );
  return rowsOf<Record<string, string | null>>(result).map((r) => ({
    prospectId: r.pid ?? '',
    targetId: r.tid ?? null,
    phase: index,
    keys: phase.keys.map((_, i) => r[`k${i}`] ?? ''),
  }));
}

/**
 * One page of prospect ids in order, continuing after `after` (phase and keys of the last row of
 * the page before). Returns up to `limit` rows.
 */
export async function listPage(
  db: Queries,
  f: ProspectFilters,
  sort: ProspectSort,
  dir: SortOrder,
  after: { phase: number; keys: string[] } | null,
  limit: number,
  opts: { searchListed?: number; companyIdsMax?: number } = {},
): Promise<PageRow[]> {
  const listed = opts.searchListed ?? SEARCH_LISTED;
  const search = f.search?.trim() ? f.search.trim() : undefined;
  const pattern = search ? containsPattern(search) : null;
  const companyIds = pattern
    ? await matchingCompanies(db, f.clientId, pattern, opts.companyIdsMax ?? COMPANY_IDS_MAX)
    : [];
  const ctx: Context = { f, pattern, companyIds };
  const combined =
    sort === 'impressions' || sort === 'super_date' || hasEntryFilter(f) || f.isSuper !== undefined;
  if (pattern && combined) {
    // A search combined with cadence-entry filters or sorts, matching up to SEARCH_LISTED
    // prospects, is looked up first and its matches sorted: an ordered index scan filtered by a
    // rare search and a filter could run through the whole index before it fills a page (11 s on
    // 1M targets). More matches than that are dense enough for the ordered scan. A search alone is
    // left to the planner (a trigram bitmap when rare, the ordered scan when common).
    // With a cadence or rep filter and a search of three or more characters (one the trigram
    // index narrows), the lookup applies the filter too: "smith" matches 8,152 prospects but only
    // 442 in the cadence, few enough to list. Counted by the search alone, they were left to an
    // ordered walk that, with fresh statistics, the planner ran down the name index through 63,000
    // prospects (300 ms on bench/prospects). A shorter search matches too many prospects for that:
    // its rows are found faster by the walk. The super filter is not applied: its EXISTS is
    // hashed over every super entry first (340 ms). The cadence is matched on the prospect's
    // cadence_ids, so the two bitmaps are intersected before any row is read: probing the cadence's
    // entries for each of the 8,152 matches of "smith" took 81–97 ms.
    const narrowed = hasEntryFilter(f) && narrowsByTrigram(search);
    const found = rowsOf<{ id: string }>(
      await db.execute(sql`
        select p.id::text as id from prospects p
        where ${and([...prospectConditions(ctx, 'p'), ...(narrowed ? entryFilterOnProspect(f, 'p') : [])])}
        limit ${listed + 1}`),
    );
    if (found.length === 0) return [];
    if (found.length <= listed) ctx.matchIds = found.map((r) => r.id);
  }
  const phases = phasesOf(ctx, sort, dir);
  const out: PageRow[] = [];
  for (const [i, phase] of phases.entries()) {
    if (i < (after?.phase ?? 0) || out.length >= limit) continue;
    const from = after && i === after.phase ? after.keys : null;
    out.push(...(await runPhase(db, phase, i, from, limit - out.length)));
  }
  return out;
}

type ProspectRow = {
  id: string;
  first_name: string;
  last_name: string;
  title: string;
  email: string | null;
  photo_url: string | null;
  is_active: boolean;
  company_id: string | null;
  company_name: string | null;
  company_website: string | null;
};
type EntryRow = {
  target_id: string;
  prospect_id: string;
  cadence_id: number;
  cadence_name: string;
  assignee_id: string | null;
  rep_first: string | null;
  rep_last: string | null;
  engagements: number;
  impressions: number;
  super_at: number | null;
  is_active: boolean;
  day_number: number;
  sales_rep_id: string | null;
  token: string;
};

const fullName = (first: string | null, last: string | null) =>
  [first, last].filter((s) => s && s.trim()).join(' ') || null;

/**
 * A target's public tags (ARCHITECTURE.md §5) under the app's public URL: the 300x250 ad
 * (`GET /t/{token}/ad/300x250.png`) and the click tag (`GET /t/{token}/c`).
 */
export function targetTagUrls(publicUrl: string, token: string): { ad_tag_url: string; click_url: string } {
  const base = `${publicUrl.replace(/\/+$/, '')}/t/${encodeURIComponent(token)}`;
  return { ad_tag_url: `${base}/ad/300x250.png`, click_url: `${base}/c` };
}

/**
 * The prospects with these ids (of the client) and all their cadence entries, in the order given.
 * Entries matching the filters come first, then the latest super, then most impressions. Each
 * entry's ad and click tags are built on `publicUrl` (config `publicUrl`).
 */
export async function prospectsByIds(
  db: Queries,
  f: ProspectFilters,
  rows: { prospectId: string; targetId: string | null }[],
  publicUrl: string,
): Promise<Prospect[]> {
  if (!rows.length) return [];
  const ids = `{${rows.map((r) => r.prospectId).join(',')}}`;
  const [people, entries] = await Promise.all([
    db.execute(sql`
      select p.id::text as id, p.first_name, p.last_name, p.title, p.email, p.photo_url, p.is_active,
        p.company_id::text as company_id, c.name as company_name, c.website as company_website
      from prospects p left join companies c on c.id = p.company_id
      where p.client_id = ${f.clientId} and p.id = any(${ids}::uuid[])`),
    db.execute(sql`
      select t.id::text as target_id, t.prospect_id::text as prospect_id, t.cadence_id,
        cd.name as cadence_name, t.sales_rep_id::text as assignee_id, r.first_name as rep_first,
        r.last_name as rep_last, (t.clicks + t.views)::int as engagements, t.impressions,
        (extract(epoch from t.super_date) * 1000)::float8 as super_at, t.is_active, t.day_number,
        t.sales_rep_id::text as sales_rep_id, t.token
      from targets t
      join cadences cd on cd.id = t.cadence_id
      left join sales_reps r on r.id = t.sales_rep_id
      where t.client_id = ${f.clientId} and t.prospect_id = any(${ids}::uuid[])`),
  ]);
  const matches = (e: EntryRow) =>
    (f.cadenceId === undefined || e.cadence_id === f.cadenceId) &&
    (f.salesRepIds === undefined || (e.sales_rep_id !== null && f.salesRepIds.includes(e.sales_rep_id))) &&
    (f.isSuper === undefined || (e.super_at !== null) === f.isSuper);
  const byProspect = new Map<string, EntryRow[]>();
  for (const e of rowsOf<EntryRow>(entries)) {
    const list = byProspect.get(e.prospect_id) ?? [];
    list.push(e);
    byProspect.set(e.prospect_id, list);
  }
  const person = new Map(rowsOf<ProspectRow>(people).map((r) => [r.id, r]));
  return rows.flatMap(({ prospectId, targetId }) => {
    const r = person.get(prospectId);
    if (!r) return [];
    const list = (byProspect.get(prospectId) ?? []).sort(
      (a, b) =>
        Number(matches(b)) - Number(matches(a)) ||
        (b.super_at ?? -Infinity) - (a.super_at ?? -Infinity) ||
        b.impressions - a.impressions ||
        a.cadence_name.localeCompare(b.cadence_name) ||
        a.cadence_id - b.cadence_id,
    );
    const cadences: ProspectCadence[] = list.map((e) => ({
      cadence_id: e.cadence_id,
      cadence_name: e.cadence_name,
      target_id: e.target_id,
      assignee_id: e.assignee_id,
      assignee_name: fullName(e.rep_first, e.rep_last),
      engagements: e.engagements,
      impressions: e.impressions,
      super_date: e.super_at === null ? null : new Date(e.super_at).toISOString(),
      is_active: e.is_active,
      day_number: e.day_number,
      ...targetTagUrls(publicUrl, e.token),
    }));
    return [
      {
        id: r.id,
        first_name: r.first_name,
        last_name: r.last_name,
        title: r.title,
        target_id: targetId ?? cadences[0]?.target_id ?? null,
        company_name: r.company_name,
        company_id: r.company_id,
        company_website: r.company_website,
        is_active: r.is_active,
        photo_url: r.photo_url,
        email: r.email,
        cadences,
      },
    ];
  });
}
