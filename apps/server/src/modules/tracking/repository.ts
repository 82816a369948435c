import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { executeNamed } from '../../db/prepared.ts';
import { suppressedSql } from '../suppressions/key.ts';
import type { SuppressionKey } from '../suppressions/key.ts';

/**
 * The SQL of the ingest path. Raw statements with JSON parameters, so that a whole batch is one
 * round trip on PGlite and PostgreSQL alike. Values come back as text, int,
 * boolean or float8 (epoch ms) only: the two drivers parse uuids, bigints and timestamps
 * differently.
 */
export type Tx = Pick<Db, 'execute' | '_'>;

function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

/** A target with everything the tracking rules and the ad need, as it stands (locked, in a write). */
export type TargetState = {
  id: string;
  token: string;
  clientId: string;
  cadenceId: number;
  prospectId: string;
  salesRepId: string | null;
  dayNumber: number;
  isActive: boolean;
  impressions: number;
  clicks: number;
  views: number;
  superAt: number | null;
  cadenceName: string;
  /** Whether ads run for the target now (the `runs` rule of the state query). */
  adsRun: boolean;
  rep: {
    id: string;
    selected: boolean;
    firstName: string;
    lastName: string;
    title: string;
    companyName: string;
    calendarUrl: string;
    photoUrl: string | null;
  } | null;
  /** The client's website (client settings), '' when unset. */
  websiteUrl: string;
  /**
   * The client's verified domains and verified landing domain: a click goes straight only to
   * these (and their subdomains); elsewhere through a page naming the destination (issue 37.8).
   */
  verifiedDomains: string[];
  /** The first published, non-archived content of the target's current day, if any. */
  content: ContentRef | null;
  /**
   * The person's fields an ad may name (prospect tags), read with the state: a change to them or to
   * their company's name moves the client's state version (migration 0065), like the rest.
   */
  prospect: ProspectInfo;
};

export type ContentRef = {
  id: string;
  version: number;
  landingPageId: string | null;
  landingPageUrl: string;
};
export type ProspectInfo = { firstName: string; lastName: string; title: string; companyName: string | null };

type TargetRow = {
  id: string;
  token: string;
  client_id: string;
  cadence_id: number;
  prospect_id: string;
  sales_rep_id: string | null;
  day_number: number;
  is_active: boolean;
  impressions: number;
  clicks: number;
  views: number;
  super_at: number | null;
  cadence_name: string;
  runs: boolean;
  content_id: string | null;
  p_first_name: string | null;
  p_last_name: string | null;
  p_title: string | null;
  p_company: string | null;
};
type StateDoc = {
  targets: TargetRow[];
  reps: {
    id: string;
    selected: boolean;
    first_name: string;
    last_name: string;
    title: string;
    company_name: string;
    calendar_url: string;
    photo_url: string | null;
  }[];
  settings: { client_id: string; website_url: string; landing_domain: string | null }[];
  domains: { client_id: string; domain: string }[];
  contents: { id: string; version: number; landing_page_id: string | null; landing_page_url: string }[];
};

const UUID_TEXT = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/**
 * The CTEs `t` (the targets picked by `where`, row-locked in id order when asked, so concurrent
 * writers cannot deadlock) and `s` (each with its cadence, whether ads run for it now, and its
 * day's content: the first `content_days` entry naming published, non-archived content of the same
 * client). Ads run when the cadence is active with ads on (`is_super`), the target is still in it,
 * and its rep is selected (onboarding) and, when the cadence names reps (`selected_sdrs`), one of
 * them, and the target is not held out (issue 45: a held-out target is shown the neutral image and
 * counts nothing, so it is never billed), and its person's address is not on the client's suppression
 * list (issue 44, decision 0027: the keyed hash is computed here, under `key`, and looked up by index;
 * a change to the list or to the prospect's address moves the client's state version). A cohort's hidden cadence (cadences.kind = 'cohort', issue 18) has members without a rep:
 * their ads run on the cadence's status alone, so pausing a cohort (its cadence) stops them. CASE guards the casts and array calls: SQL does not promise to evaluate AND/OR in order.
 */
function stateCtes(where: SQL, lock: boolean, key: SuppressionKey): SQL {
  return sql`
t as (
  select t.id, t.token, t.client_id, t.cadence_id, t.prospect_id, t.sales_rep_id, t.day_number,
    t.is_active, t.impressions, t.clicks, t.views, t.super_date, t.holdout_group
  from targets t where ${where}
  order by t.id ${lock ? sql.raw('for update') : sql.raw('')}
), s as (
  select t.*, c.name as cadence_name,
    coalesce(c.status = 'active' and c.is_super and t.is_active
      and t.holdout_group is distinct from 'held_out'
      and not coalesce(${suppressedSql(key, sql`t.client_id`, sql`p.email`)}, false)
      and (r.selected or (c.kind = 'cohort' and t.sales_rep_id is null))
      and case when jsonb_typeof(c.selected_sdrs) <> 'array' then true
        when jsonb_array_length(c.selected_sdrs) = 0 then true
        else c.selected_sdrs ? r.id::text end, false) as runs,
    p.first_name as p_first_name, p.last_name as p_last_name, p.title as p_title,
    (select co.name from companies co where co.id = p.company_id) as p_company,
    (select x.id from jsonb_array_elements(
        case when jsonb_typeof(cd.content_days) = 'array' then cd.content_days else '[]'::jsonb end
      ) with ordinality as e(item, n)
      join content x on x.id = case when e.item->>'content_id' ~ ${sql.raw(`'${UUID_TEXT}'`)}
        then (e.item->>'content_id')::uuid end
      where x.client_id = t.client_id and x.status = 'published' and not x.is_archived
      order by e.n limit 1) as content_id
  from t join cadences c on c.id = t.cadence_id
  left join sales_reps r on r.id = t.sales_rep_id
  left join prospects p on p.id = t.prospect_id
  left join cadence_days cd on cd.cadence_id = t.cadence_id and cd.day_number = t.day_number
)`;
}

/** The state document's fields, from `s`: everything the rules, the ad and the click need. */
const STATE_FIELDS = sql.raw(`
  'targets', (select coalesce(json_agg(json_build_object('id', s.id, 'token', s.token,
      'client_id', s.client_id, 'cadence_id', s.cadence_id, 'prospect_id', s.prospect_id,
      'sales_rep_id', s.sales_rep_id, 'day_number', s.day_number, 'is_active', s.is_active,
      'impressions', s.impressions, 'clicks', s.clicks, 'views', s.views,
      'super_at', (extract(epoch from s.super_date) * 1000)::float8, 'cadence_name', s.cadence_name,
      'runs', s.runs, 'content_id', s.content_id, 'p_first_name', s.p_first_name,
      'p_last_name', s.p_last_name, 'p_title', s.p_title, 'p_company', s.p_company) order by s.id), '[]') from s),
  'reps', (select coalesce(json_agg(json_build_object('id', r.id, 'selected', r.selected,
      'first_name', r.first_name, 'last_name', r.last_name, 'title', r.title,
      'company_name', r.company_name, 'calendar_url', r.calendar_url, 'photo_url', r.photo_url)), '[]')
    from sales_reps r where r.id in (select sales_rep_id from s)),
  'settings', (select coalesce(json_agg(json_build_object('client_id', cs.client_id,
      'website_url', cs.website_url, 'landing_domain', case
        when cs.landing_page_domain_verified_at is not null then cs.landing_page_domain end)), '[]')
    from client_settings cs where cs.client_id in (select client_id from s)),
  'domains', (select coalesce(json_agg(json_build_object('client_id', d.client_id, 'domain', d.domain)), '[]')
    from client_domains d where d.verified_at is not null and d.client_id in (select client_id from s)),
  'contents', (select coalesce(json_agg(json_build_object('id', x.id,
      'version', (extract(epoch from coalesce(x.updated_at, x.created_at)) * 1000)::float8,
      'landing_page_id', x.landing_page_id, 'landing_page_url', x.landing_page_url)), '[]')
    from content x where x.id in (select content_id from s))`);

function statesOf(doc: StateDoc): TargetState[] {
  const reps = new Map(doc.reps.map((r) => [r.id, r]));
  const websites = new Map(doc.settings.map((s) => [s.client_id, s.website_url]));
  const domains = new Map<string, string[]>();
  const addDomain = (clientId: string, domain: string) =>
    domains.set(clientId, [...(domains.get(clientId) ?? []), domain]);
  for (const d of doc.domains) addDomain(d.client_id, d.domain);
  for (const s of doc.settings) if (s.landing_domain) addDomain(s.client_id, s.landing_domain);
  const contents = new Map(doc.contents.map((c) => [c.id, c]));
  return doc.targets.map((t): TargetState => {
    const r = t.sales_rep_id ? reps.get(t.sales_rep_id) : undefined;
    const content = t.content_id ? contents.get(t.content_id) : undefined;
    return {
      id: t.id,
      token: t.token,
      clientId: t.client_id,
      cadenceId: t.cadence_id,
      prospectId: t.prospect_id,
      salesRepId: t.sales_rep_id,
      dayNumber: t.day_number,
      isActive: t.is_active,
      impressions: t.impressions,
      clicks: t.clicks,
      views: t.views,
      superAt: t.super_at,
      cadenceName: t.cadence_name,
      adsRun: t.runs,
      rep: r
        ? {
            id: r.id,
            selected: r.selected,
            firstName: r.first_name,
            lastName: r.last_name,
            title: r.title,
            companyName: r.company_name,
            calendarUrl: r.calendar_url,
            photoUrl: r.photo_url,
          }
        : null,
      websiteUrl: websites.get(t.client_id) ?? '',
      verifiedDomains: domains.get(t.client_id) ?? [],
      content: content
        ? {
            id: content.id,
            version: content.version,
            landingPageId: content.landing_page_id,
            landingPageUrl: content.landing_page_url,
          }
        : null,
      prospect: {
        firstName: t.p_first_name ?? '',
        lastName: t.p_last_name ?? '',
        title: t.p_title ?? '',
        companyName: t.p_company,
      },
    };
  });
}

function docOf<T>(value: T | string): T {
  return typeof value === 'string' ? (JSON.parse(value) as T) : value;
}

/** One target by token, read without locking (uncounted traffic). */
export async function peekTarget(db: Tx, token: string, key: SuppressionKey): Promise<TargetState | null> {
  const query = sql`with ${stateCtes(sql`t.token = ${token}`, false, key)}
select json_build_object(${STATE_FIELDS}) as state`;
  const [row] = (await executeNamed<{ state: StateDoc | string }>(db, 'tracking_peek_target', query)).rows;
  return row ? (statesOf(docOf(row.state))[0] ?? null) : null;
}

/** One event to record; `ord` is its place in the batch (the order the counters see events in). */
export type BatchItem = {
  ord: number;
  token: string;
  type: 'impression' | 'click' | 'view';
  size: string | null;
  at: string;
  /** Record an impression even when the day has no content (demo data). */
  allow: boolean;
  /** Only a person's events count; the others are kept in `uncounted_events` (decision 0017). */
  verdict: string;
  reason: string | null;
};
export type StoredFeedItem = {
  id: number;
  client_id: string;
  type: 'super' | 'click' | 'view';
  target_id: string;
  cadence_id: number;
  prospect_id: string;
  sales_rep_id: string | null;
  data: Record<string, unknown>;
  created_at: string;
};
export type BatchResult = {
  /** The targets as they stood before the batch (locked), by token. */
  states: Map<string, TargetState>;
  /**
   * `ord`s of the items recorded (ads run for the target, and content when it is an impression),
   * counted or kept uncounted by their verdict.
   */
  recorded: Set<number>;
  /** `ord`s of the items that made their target super. */
  supers: Set<number>;
  feed: StoredFeedItem[];
};

type BatchDoc = StateDoc & {
  recorded: number[];
  supers: number[];
  feed: (Omit<StoredFeedItem, 'created_at'> & { created_at: number })[];
};

/**
 * A number written into a statement's text rather than bound: the consumer's windows, limit and the
 * superprospect rule are the process's constants, and a named statement with no parameters is
 * planned once per connection (until a table it reads is analyzed), where parameters made
 * PostgreSQL plan the fold anew on every call (a custom plan each time: 20-80 ms at load).
 */
function literal(n: number): SQL {
  if (!Number.isFinite(n)) throw new Error(`not a finite number: ${n}`);
  return sql.raw(String(n));
}

/**
 * The counting CTEs after `e` (the events that count, in order, each with its target's counters
 * before it plus the events before it in the batch: `imp`, `clk`, `vw`; `same_day` when it is of the
 * target's current day): the superprospect rule (ARCHITECTURE.md §5: ≥ `clicks` clicks or ≥
 * `impressions` impressions, super_date set once, at the event that crossed), the events appended,
 * the counters added, the feed items (clicks, views, new supers, with the names at the time) as `fd`.
 */
function countingCtes(rule: { clicks: number; impressions: number }): SQL {
  const clicks = literal(rule.clicks);
  const impressions = literal(rule.impressions);
  return sql`sup as (
    select distinct on (e.target_id) e.target_id, e.ord, e.at, e.clk >= ${clicks} as by_click
    from e
    where e.super_date is null and (e.clk >= ${clicks} or e.imp >= ${impressions})
    order by e.target_id, e.ord
  ), ev as (
    insert into engagement_events (client_id, target_id, cadence_id, type, day_number, content_id, size, reason, occurred_at)
    select client_id, target_id, cadence_id, type, day_number, content_id,
      case when type = 'impression' then size end, verdict_reason, at
    from e order by ord
  ), d as (
    select e.target_id as id,
      (count(*) filter (where e.type = 'impression'))::int as imp,
      (count(*) filter (where e.type = 'click'))::int as clk,
      (count(*) filter (where e.type = 'view'))::int as vw,
      (count(*) filter (where e.type = 'impression' and e.same_day))::int as day_imp,
      (count(*) filter (where e.type = 'click' and e.same_day))::int as day_clk,
      sup.at as super_at
    -- A join, not a subquery per target: the consumer's batches have thousands of targets.
    from e left join sup on sup.target_id = e.target_id
    group by e.target_id, sup.at
  ), up as (
    update targets t set
      impressions = t.impressions + d.imp,
      clicks = t.clicks + d.clk,
      views = t.views + d.vw,
      day_impressions = t.day_impressions + d.day_imp,
      day_clicks = t.day_clicks + d.day_clk,
      super_date = coalesce(t.super_date, d.super_at)
    from d
    -- By primary key, row by row of d. No id list beside it (\`t.id = any(array(...))\`): the index
    -- scan sorted the whole list again at each of d's rows (PostgreSQL before 17 prepares a scan's
    -- array keys at every rescan), quadratic in the fold's targets.
    where t.id = d.id
  ), fi as (
    select e.*, 0 as k, e.type as feed_type, null::text as reason from e where e.type <> 'impression'
    union all
    select e.*, 1, 'super', case when sup.by_click then 'click' else 'impressions' end
    from e join sup on sup.target_id = e.target_id and sup.ord = e.ord
  ), fd as (
    insert into feed_items (client_id, type, target_id, cadence_id, prospect_id, sales_rep_id, data, created_at)
    select fi.client_id, fi.feed_type, fi.target_id, fi.cadence_id, fi.prospect_id, fi.sales_rep_id,
      jsonb_build_object('first_name', coalesce(p.first_name, ''), 'last_name', coalesce(p.last_name, ''),
        'company_name', co.name, 'cadence_name', fi.cadence_name,
        'sales_rep_name', case when r.id is not null then btrim(r.first_name || ' ' || r.last_name) end,
        'day_number', fi.day_number, 'impressions', fi.imp, 'clicks', fi.clk, 'views', fi.vw)
        || case when fi.reason is null then '{}'::jsonb else jsonb_build_object('reason', fi.reason) end,
      fi.at
    from fi
    left join prospects p on p.id = fi.prospect_id
    left join companies co on co.id = p.company_id
    left join sales_reps r on r.id = fi.sales_rep_id
    order by fi.ord, fi.k
    returning id, client_id, type, target_id, cadence_id, prospect_id, sales_rep_id, data, created_at
)`;
}

/** The feed items `fd` wrote, for the bus. */
const FEED_JSON = sql.raw(`(select coalesce(json_agg(json_build_object('id', fd.id, 'client_id', fd.client_id,
      'type', fd.type, 'target_id', fd.target_id, 'cadence_id', fd.cadence_id,
      'prospect_id', fd.prospect_id, 'sales_rep_id', fd.sales_rep_id, 'data', fd.data,
      'created_at', (extract(epoch from fd.created_at) * 1000)::float8) order by fd.id), '[]') from fd)`);

/**
 * A whole batch of events in one statement, so one round trip and one implicit transaction: lock
 * the targets (id order), decide which events count, append them, add them to the counters with
 * the superprospect rule (ARCHITECTURE.md §5: ≥ `clicks` clicks or ≥ `impressions` impressions,
 * super_date set once, at the event that crossed), append the feed items (clicks, views, new
 * supers, with the names at the time) and return it all. A flush used to be five round trips
 * (begin, lock-and-read, names, write, commit); on a loopback socket each one costs a write and a
 * wake-up on both sides, which was the largest cost of the ingest path.
 */
export async function ingestBatch(
  db: Tx,
  items: BatchItem[],
  rule: { clicks: number; impressions: number },
  key: SuppressionKey,
): Promise<BatchResult> {
  const query = sql`
with items as (
  select x.ord, x.token, x.type, x.size, x.at, x.allow, x.verdict, x.reason
  from jsonb_to_recordset(${JSON.stringify(items)}::jsonb)
    as x(ord int, token text, type text, size text, at timestamptz, allow boolean, verdict text, reason text)
), ${stateCtes(sql`t.token = any(array(select token from items))`, true, key)},
r as (
  select i.*, s.id as target_id, s.client_id, s.cadence_id, s.day_number, s.content_id
  from items i join s on s.token = i.token
  where s.runs and (i.type <> 'impression' or s.content_id is not null or i.allow)
), un as (
  insert into uncounted_events (client_id, target_id, cadence_id, type, verdict, reason, day_number, content_id, size, occurred_at)
  select client_id, target_id, cadence_id, type, verdict, coalesce(reason, verdict), day_number, content_id,
    case when type = 'impression' then size end, at
  from r where verdict <> 'person' order by ord
),
e as (
  select i.ord, i.type, i.size, i.at, i.reason as verdict_reason, s.id as target_id, s.client_id, s.cadence_id, s.prospect_id,
    s.sales_rep_id, s.day_number, s.content_id, s.super_date, s.cadence_name, true as same_day,
    s.impressions + count(*) filter (where i.type = 'impression') over w as imp,
    s.clicks + count(*) filter (where i.type = 'click') over w as clk,
    s.views + count(*) filter (where i.type = 'view') over w as vw
  from items i join s on s.token = i.token
  where s.runs and (i.type <> 'impression' or s.content_id is not null or i.allow) and i.verdict = 'person'
  window w as (partition by s.id order by i.ord rows unbounded preceding)
),
${countingCtes(rule)}
select json_build_object(${STATE_FIELDS},
  'recorded', (select coalesce(json_agg(r.ord), '[]') from r),
  'supers', (select coalesce(json_agg(sup.ord), '[]') from sup),
  'feed', ${FEED_JSON}
) as state`;
  const [row] = (
    await executeNamed<{ state: BatchDoc | string }>(
      db,
      `tracking_ingest_batch_${rule.clicks}_${rule.impressions}`,
      query,
    )
  ).rows;
  if (!row) throw new Error('the ingest statement returned no row');
  const doc = docOf(row.state);
  return {
    states: new Map(statesOf(doc).map((s) => [s.token, s])),
    recorded: new Set(doc.recorded),
    supers: new Set(doc.supers),
    feed: doc.feed.map(feedItemOf),
  };
}

/** A target's state with its client's state version, read together (one snapshot). */
export type VersionedState = { state: TargetState; version: number };

/** One target by token with its client's state version (the cache's fill; nothing locked). */
export async function peekVersioned(
  db: Tx,
  token: string,
  key: SuppressionKey,
): Promise<VersionedState | null> {
  const query = sql`with ${stateCtes(sql`t.token = ${token}`, false, key)}
select json_build_object(${STATE_FIELDS}) as state,
  (select coalesce(max(v.version), 0) from tracking_state_versions v
    where v.client_id = (select t.client_id from t))::text as version`;
  const [row] = (
    await executeNamed<{ state: StateDoc | string; version: string }>(db, 'tracking_peek_versioned', query)
  ).rows;
  const state = row ? statesOf(docOf(row.state))[0] : undefined;
  return row && state ? { state, version: Number(row.version) } : null;
}

/** An event decided from a cached state, to append when `version` is still its client's. */
export type QueueItem = {
  ord: number;
  clientId: string;
  version: number;
  /** Whether the event counts; a decision not to count is checked against the version too. */
  count: boolean;
  targetId: string;
  cadenceId: number;
  type: 'impression' | 'click' | 'view';
  dayNumber: number;
  contentId: string | null;
  size: string | null;
  at: string;
  /** The request's verdict (decision 0017); the consumer may still find a person's click in a burst. */
  verdict: string;
  reason: string;
  /**
   * A person's click that leads to our landing page: it counts only once that page is viewed from a
   * browser after it (decision 0017's landing-view rule); optional, false when left out.
   */
  awaitsView?: boolean;
};

/**
 * Appends the batch's counted events whose decision was made at their client's current state
 * version, in one statement; returns the `ord`s whose version held (appended or rightly not
 * counted) and each client's version now, so the others are decided again.
 */
export async function enqueueEvents(
  db: Tx,
  items: QueueItem[],
): Promise<{ held: Set<number>; versions: Map<string, number> }> {
  const rows = items.map((i) => ({
    ord: i.ord,
    client_id: i.clientId,
    version: i.version,
    count: i.count,
    target_id: i.targetId,
    cadence_id: i.cadenceId,
    type: i.type,
    day_number: i.dayNumber,
    content_id: i.contentId,
    size: i.size,
    at: i.at,
    verdict: i.verdict,
    reason: i.reason,
    awaits_view: i.awaitsView === true,
  }));
  const query = sql`
with items as (
  select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(ord int, client_id uuid,
    version bigint, count boolean, target_id uuid, cadence_id int, type text, day_number int,
    content_id uuid, size text, at timestamptz, verdict text, reason text, awaits_view boolean)
), v as (
  select c.client_id, coalesce((select sv.version from tracking_state_versions sv
    where sv.client_id = c.client_id), 0) as version
  from (select distinct client_id from items) c
), ok as (
  select i.* from items i join v on v.client_id = i.client_id and v.version = i.version
), ins as (
  insert into ingest_queue (client_id, target_id, cadence_id, type, day_number, content_id, size, occurred_at, verdict, reason, awaits_view)
  select client_id, target_id, cadence_id, type, day_number, content_id,
    case when type = 'impression' then size end, at, verdict, reason, awaits_view
  from ok where count order by ord
)
select json_build_object('held', (select coalesce(json_agg(ok.ord), '[]') from ok),
  'versions', (select coalesce(json_object_agg(v.client_id, v.version::text), '{}') from v)) as doc`;
  type Doc = { held: number[]; versions: Record<string, string> };
  const [row] = (await executeNamed<{ doc: Doc | string }>(db, 'tracking_enqueue', query)).rows;
  if (!row) throw new Error('the enqueue statement returned no row');
  const doc = docOf(row.doc);
  return {
    held: new Set(doc.held),
    versions: new Map(Object.entries(doc.versions).map(([k, v]) => [k, Number(v)])),
  };
}

/** The advisory lock that makes the fold a single consumer across processes. */
const FOLD_LOCK = 727003;
/**
 * How much longer than the burst window a person's click waits in the queue: an event is stamped
 * when its request arrives and appended a moment later, and the fold must see the whole window.
 */
export const BURST_MARGIN_MS = 500;
/**
 * An image fetched this long or longer before a click is a person's message open followed by their
 * click, not part of a burst: people take over a second to see an ad and click it.
 */
export const SEEN_BEFORE_CLICK_MS = 1_000;
/** How much longer than the landing-view wait a click waits, for the same reason as BURST_MARGIN_MS. */
export const VIEW_MARGIN_MS = 500;

/**
 * The consumer: takes up to `limit` of the oldest queued events and, in one statement (so one
 * transaction: the events leave the queue only when they are counted), appends them to
 * `engagement_events`, adds them to their targets' counters under the targets' row locks with the
 * superprospect rule, and writes the feed. `taken` is -1 when another process holds the fold.
 * `viewWaitMs` (0: off): a person's click that leads to our landing page waits up to this long for
 * the page's view from a browser, and without one it is a scanner's (`no_landing_view`).
 */
export async function foldQueue(
  db: Tx,
  limit: number,
  rule: { clicks: number; impressions: number },
  burstMs = 0,
  viewWaitMs = 0,
): Promise<{ taken: number; feed: StoredFeedItem[] }> {
  const viewWait = sql`make_interval(secs => ${literal(viewWaitMs / 1000)}::float8)`;
  const viewHold = sql`make_interval(secs => ${literal((viewWaitMs + VIEW_MARGIN_MS) / 1000)}::float8)`;
  // The page's view after the click, within the wait (the view's request follows the click's redirect).
  const viewed = (
    click: string,
  ) => sql`(exists (select 1 from ingest_queue v where v.target_id = ${sql.raw(click)}.target_id
      and v.type = 'view' and v.occurred_at >= ${sql.raw(click)}.occurred_at and v.occurred_at < ${sql.raw(click)}.occurred_at + ${viewWait})
    or exists (select 1 from engagement_events v where v.target_id = ${sql.raw(click)}.target_id
      and v.type = 'view' and v.occurred_at >= ${sql.raw(click)}.occurred_at and v.occurred_at < ${sql.raw(click)}.occurred_at + ${viewWait}))`;
  const burst = sql`make_interval(secs => ${literal(burstMs / 1000)}::float8)`;
  const hold = sql`make_interval(secs => ${literal((burstMs + BURST_MARGIN_MS) / 1000)}::float8)`;
  const seen = sql`make_interval(secs => ${literal(Math.min(burstMs, SEEN_BEFORE_CLICK_MS) / 1000)}::float8)`;
  const query = sql`
with lk as (
  select pg_try_advisory_xact_lock(${literal(FOLD_LOCK)}) as ok
), young as materialized (
  -- A person's click waits until every fetch of its burst window has arrived; so does whatever
  -- of its target came after it, so counters still see the target's events in order.
  -- A click to our landing page waits for the page's view (or the end of its wait) the same way.
  -- Materialized: computed once. Inlined, a plan made while the queue's statistics said it was
  -- empty (see vacuumQueue) computed it again for each queued row the fold looked at.
  select target_id, min(id) as first_id from ingest_queue iq
  where type = 'click' and verdict = 'person' and (
    (${literal(burstMs)}::int > 0 and occurred_at > now() - ${hold})
    or (${literal(viewWaitMs)}::int > 0 and awaits_view and occurred_at > now() - ${viewHold} and not ${viewed('iq')}))
  group by target_id
), q as (
  delete from ingest_queue where id in (
    select iq.id from ingest_queue iq where (select ok from lk)
      and not exists (select 1 from young y where y.target_id = iq.target_id and iq.id >= y.first_id)
    order by iq.id limit ${literal(limit)})
  returning id, client_id, target_id, cadence_id, type, day_number, content_id, size, occurred_at, verdict, reason, awaits_view
), b as (
  -- Several fetches of one message within the window: a scanner's (decision 0017). Every other
  -- tag request of the target around the click counts, whatever its verdict and wherever it is,
  -- except an image fetched at least a second before the click: a person opening the message and
  -- then clicking (no one sees an ad and clicks it sooner; a gateway fetches both at once).
  -- Each read is a range of the target's (target_id, occurred_at) index: the window's outer bounds
  -- are stated apart from the per-type one (the seen window is never longer than the burst's).
  select q.id, 'burst' as reason from q
  where ${literal(burstMs)}::int > 0 and q.type = 'click' and q.verdict = 'person' and (
    exists (select 1 from ingest_queue r where r.target_id = q.target_id and r.id <> q.id
      and r.type <> 'view' and r.occurred_at > q.occurred_at - ${burst}
      and r.occurred_at > q.occurred_at - case when r.type = 'impression' then ${seen} else ${burst} end
      and r.occurred_at < q.occurred_at + ${burst})
    or exists (select 1 from engagement_events x where x.target_id = q.target_id and x.type <> 'view'
      and x.occurred_at > q.occurred_at - ${burst}
      and x.occurred_at > q.occurred_at - case when x.type = 'impression' then ${seen} else ${burst} end
      and x.occurred_at < q.occurred_at + ${burst})
    or exists (select 1 from uncounted_events x where x.target_id = q.target_id
      and x.occurred_at > q.occurred_at - ${burst}
      and x.occurred_at > q.occurred_at - case when x.type = 'impression' then ${seen} else ${burst} end
      and x.occurred_at < q.occurred_at + ${burst}))
), nv as (
  -- A click to our landing page that no browser followed to the page: a gateway fetching the link
  -- (a person's browser follows the redirect and loads the page, which counts its view).
  select q.id, 'no_landing_view' as reason from q
  where ${literal(viewWaitMs)}::int > 0 and q.type = 'click' and q.verdict = 'person' and q.awaits_view
    and not exists (select 1 from b where b.id = q.id) and not ${viewed('q')}
), sc as (
  select id, reason from b union all select id, reason from nv
), qv as (
  select q.id, q.client_id, q.target_id, q.cadence_id, q.type, q.day_number, q.content_id, q.size, q.occurred_at,
    case when sc.id is null then q.verdict else 'scanner' end as verdict,
    case when sc.id is null then q.reason else sc.reason end as reason
  from q left join sc on sc.id = q.id
), un as (
  insert into uncounted_events (client_id, target_id, cadence_id, type, verdict, reason, day_number, content_id, size, occurred_at)
  select client_id, target_id, cadence_id, type, verdict, coalesce(reason, verdict), day_number, content_id, size, occurred_at
  from qv where verdict <> 'person' order by id
), t as (
  select t.id, t.prospect_id, t.sales_rep_id, t.day_number, t.impressions, t.clicks, t.views, t.super_date
  from targets t where t.id = any(array(select target_id from qv where verdict = 'person'))
  order by t.id for update
), e as (
  select q.id as ord, q.type, q.size, q.occurred_at as at, q.reason as verdict_reason, t.id as target_id, q.client_id, q.cadence_id,
    t.prospect_id, t.sales_rep_id, q.day_number, q.content_id, t.super_date, c.name as cadence_name,
    q.day_number = t.day_number as same_day,
    t.impressions + count(*) filter (where q.type = 'impression') over w as imp,
    t.clicks + count(*) filter (where q.type = 'click') over w as clk,
    t.views + count(*) filter (where q.type = 'view') over w as vw
  from qv q join t on t.id = q.target_id
  join cadences c on c.id = q.cadence_id
  where q.verdict = 'person'
  window w as (partition by t.id order by q.id rows unbounded preceding)
),
${countingCtes(rule)}
select json_build_object('locked', (select ok from lk), 'taken', (select count(*) from q),
  'feed', ${FEED_JSON}) as doc`;
  type Doc = {
    locked: boolean;
    taken: number;
    feed: (Omit<StoredFeedItem, 'created_at'> & { created_at: number })[];
  };
  const [row] = (
    await executeNamed<{ doc: Doc | string }>(
      db,
      `tracking_fold_${limit}_${burstMs}_${viewWaitMs}_${rule.clicks}_${rule.impressions}`,
      query,
    )
  ).rows;
  if (!row) throw new Error('the fold statement returned no row');
  const doc = docOf(row.doc);
  return { taken: doc.locked ? Number(doc.taken) : -1, feed: doc.feed.map(feedItemOf) };
}

/**
 * Vacuums the ingest queue. Every event is appended to it and deleted by a fold, so but for the
 * last fold's events it is all dead rows until a vacuum reclaims them, and each fold reads through
 * them (its oldest ids from the left of the primary key, the young clicks from the table): a fold
 * cost more with every event since the last vacuum. Autovacuum visits a table at most once a
 * minute (600,000 events at 10,000 a second) and is off on the bench's server.
 * With truncation: a vacuum of a caught-up queue otherwise leaves its pages with no rows in them, and
 * the planner, which scales the rows a page held at the last vacuum by the table's pages now, takes
 * the queue for empty until the next vacuum however long it grows: the fold's plan made then ran
 * nested loops over the whole queue, folds of 5,000 taking 10-180 s once a burst came
 * (bench/ingest-fold.ts). Emptied trailing pages cut off, the planner sizes the queue by its pages.
 * The cut takes the table's exclusive lock only if it is free at once and gives it up as soon as an
 * append waits for it (PostgreSQL's lazy_truncate_heap checks every 20 ms).
 */
export async function vacuumQueue(db: Db): Promise<void> {
  await db.execute(sql`vacuum (skip_locked, truncate true) ingest_queue`);
}

/** Whether any event waits to be folded (by any process). */
export async function queuePending(db: Tx): Promise<boolean> {
  const [row] = rowsOf<{ n: boolean }>(
    await db.execute(sql`select exists (select 1 from ingest_queue) as n`),
  );
  return row?.n === true;
}

function feedItemOf(f: Omit<StoredFeedItem, 'created_at'> & { created_at: number }): StoredFeedItem {
  return { ...f, id: Number(f.id), created_at: new Date(f.created_at).toISOString() };
}

/** Creates this month's and the next three months' event partitions if missing (migration 0003). */
export async function ensurePartitions(db: Db): Promise<void> {
  await db.transaction(async (tx) => {
    // Two instances starting together would race on CREATE TABLE ... PARTITION OF.
    await tx.execute(sql`select pg_advisory_xact_lock(727002)`);
    await tx.execute(sql`select ensure_engagement_partitions(0, 3)`);
  });
}
