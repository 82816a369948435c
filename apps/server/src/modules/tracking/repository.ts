import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { executeNamed } from '../../db/prepared.ts';

/**
 * The SQL of the ingest path. Raw statements with one JSON parameter each, so that a whole batch is
 * one round trip per statement on PGlite and PostgreSQL alike. Values come back as text, int,
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
  cadenceStatus: string;
  cadenceIsSuper: boolean;
  selectedSdrs: string[];
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
  /** The first published, non-archived content of the target's current day, if any. */
  content: ContentRef | null;
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
};
type StateDoc = {
  targets: TargetRow[];
  cadences: { id: number; name: string; status: string; is_super: boolean; selected_sdrs: unknown }[];
  days: { cadence_id: number; day_number: number; content_days: unknown }[];
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
  settings: { client_id: string; website_url: string }[];
  /** Published, non-archived content named by those days. */
  contents: {
    id: string;
    client_id: string;
    version: number;
    landing_page_id: string | null;
    landing_page_url: string;
  }[];
};

/**
 * Everything about some targets in one statement and one JSON value: the targets (locked when
 * asked), their cadences, current days, reps, client settings and the days' usable content. One
 * round trip per batch, no many-way join to plan, and one native JSON.parse instead of per-row
 * decoding (which dominates on the embedded database).
 */
function stateQuery(where: SQL, lock: boolean): SQL {
  return sql`
with t as (
  select t.id, t.token, t.client_id, t.cadence_id, t.prospect_id, t.sales_rep_id, t.day_number,
    t.is_active, t.impressions, t.clicks, t.views,
    (extract(epoch from t.super_date) * 1000)::float8 as super_at
  from targets t where ${where}
  order by t.id ${lock ? sql.raw('for update') : sql.raw('')}
), d as (
  select cd.cadence_id, cd.day_number, cd.content_days from cadence_days cd
  where (cd.cadence_id, cd.day_number) in (select cadence_id, day_number from t)
)
select json_build_object(
  'targets', (select coalesce(json_agg(t order by t.id), '[]') from t),
  'cadences', (select coalesce(json_agg(json_build_object('id', c.id, 'name', c.name,
      'status', c.status, 'is_super', c.is_super, 'selected_sdrs', c.selected_sdrs)), '[]')
    from cadences c where c.id in (select cadence_id from t)),
  'days', (select coalesce(json_agg(d), '[]') from d),
  'reps', (select coalesce(json_agg(json_build_object('id', r.id, 'selected', r.selected,
      'first_name', r.first_name, 'last_name', r.last_name, 'title', r.title,
      'company_name', r.company_name, 'calendar_url', r.calendar_url, 'photo_url', r.photo_url)), '[]')
    from sales_reps r where r.id in (select sales_rep_id from t)),
  'settings', (select coalesce(json_agg(json_build_object('client_id', cs.client_id,
      'website_url', cs.website_url)), '[]')
    from client_settings cs where cs.client_id in (select client_id from t)),
  'contents', (select coalesce(json_agg(json_build_object('id', x.id, 'client_id', x.client_id,
      'version', (extract(epoch from coalesce(x.updated_at, x.created_at)) * 1000)::float8,
      'landing_page_id', x.landing_page_id, 'landing_page_url', x.landing_page_url)), '[]')
    from content x
    where x.status = 'published' and not x.is_archived and x.id = any(array(
      select (e.item->>'content_id')::uuid from d
      cross join lateral jsonb_array_elements(
        case when jsonb_typeof(d.content_days) = 'array' then d.content_days else '[]'::jsonb end
      ) as e(item)
      where e.item->>'content_id' ~ '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'
    )))
) as state`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The content ids a day lists, in order; malformed entries are skipped. */
function contentIdsOf(contentDays: unknown): string[] {
  if (!Array.isArray(contentDays)) return [];
  return contentDays.flatMap((d: unknown) => {
    const id = (d as { content_id?: unknown } | null)?.content_id;
    return typeof id === 'string' && UUID.test(id) ? [id.toLowerCase()] : [];
  });
}

async function readStates(tx: Tx, name: string, query: SQL): Promise<TargetState[]> {
  const [row] = (await executeNamed<{ state: StateDoc | string }>(tx, name, query)).rows;
  if (!row) return [];
  const doc = typeof row.state === 'string' ? (JSON.parse(row.state) as StateDoc) : row.state;
  const cadences = new Map(doc.cadences.map((c) => [c.id, c]));
  const days = new Map(doc.days.map((d) => [`${d.cadence_id}:${d.day_number}`, d.content_days]));
  const reps = new Map(doc.reps.map((r) => [r.id, r]));
  const websites = new Map(doc.settings.map((s) => [s.client_id, s.website_url]));
  const contents = new Map(doc.contents.map((c) => [c.id, c]));
  return doc.targets.flatMap((t): TargetState[] => {
    const c = cadences.get(t.cadence_id);
    if (!c) return [];
    const r = t.sales_rep_id ? reps.get(t.sales_rep_id) : undefined;
    // The first entry of the day naming usable content of the same client.
    const content = contentIdsOf(days.get(`${t.cadence_id}:${t.day_number}`))
      .map((id) => contents.get(id))
      .find((x) => x !== undefined && x.client_id === t.client_id);
    return [
      {
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
        cadenceName: c.name,
        cadenceStatus: c.status,
        cadenceIsSuper: c.is_super,
        selectedSdrs: Array.isArray(c.selected_sdrs) ? c.selected_sdrs.map(String) : [],
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
        content: content
          ? {
              id: content.id,
              version: content.version,
              landingPageId: content.landing_page_id,
              landingPageUrl: content.landing_page_url,
            }
          : null,
      },
    ];
  });
}

/** The targets of these tokens, row-locked for the rest of the transaction, in id order (no deadlocks). */
export async function lockTargets(tx: Tx, tokens: string[]): Promise<Map<string, TargetState>> {
  const where = sql`t.token = any(array(select jsonb_array_elements_text(${JSON.stringify(tokens)}::jsonb)))`;
  const states = await readStates(tx, 'tracking_lock_targets', stateQuery(where, true));
  return new Map(states.map((s) => [s.token, s]));
}

/** One target by token, read without locking (uncounted traffic). */
export async function peekTarget(db: Tx, token: string): Promise<TargetState | null> {
  const [state] = await readStates(db, 'tracking_peek_target', stateQuery(sql`t.token = ${token}`, false));
  return state ?? null;
}

/** Names (and title) of prospects, for feed items and prospect tags in ads. */
export async function prospectInfo(tx: Tx, ids: string[]): Promise<Map<string, ProspectInfo>> {
  const result = await tx.execute(sql`
select p.id::text as id, p.first_name, p.last_name, p.title,
  (select co.name from companies co where co.id = p.company_id) as company_name
from prospects p where p.id = any(array(select (jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))::uuid))`);
  type Row = {
    id: string;
    first_name: string;
    last_name: string;
    title: string;
    company_name: string | null;
  };
  return new Map(
    rowsOf<Row>(result).map((r) => [
      r.id,
      { firstName: r.first_name, lastName: r.last_name, title: r.title, companyName: r.company_name },
    ]),
  );
}

export type EventRow = {
  client_id: string;
  target_id: string;
  cadence_id: number;
  type: 'impression' | 'click' | 'view';
  day_number: number;
  content_id: string | null;
  size: string | null;
  occurred_at: string;
};
export type CounterDelta = { id: string; imp: number; clk: number; vw: number; super_at: string | null };
export type FeedRow = {
  client_id: string;
  type: 'super' | 'click' | 'view';
  target_id: string;
  cadence_id: number;
  prospect_id: string;
  sales_rep_id: string | null;
  data: Record<string, unknown>;
  created_at: string;
};
export type StoredFeedItem = FeedRow & { id: number };

type StoredFeedRow = Omit<FeedRow, 'created_at'> & { id: string; created_at: number };

/**
 * Appends the events, adds them to their targets' counters (super_date set only if still unset) and
 * appends the feed items: one statement, so one round trip for the whole batch. The caller holds
 * the targets' row locks.
 */
export async function writeEngagement(
  tx: Tx,
  events: EventRow[],
  deltas: CounterDelta[],
  feed: FeedRow[],
): Promise<StoredFeedItem[]> {
  const result = await executeNamed<StoredFeedRow>(
    tx,
    'tracking_write_engagement',
    sql`
with ev as (
  insert into engagement_events (client_id, target_id, cadence_id, type, day_number, content_id, size, occurred_at)
  select client_id, target_id, cadence_id, type, day_number, content_id, size, occurred_at
  from jsonb_to_recordset(${JSON.stringify(events)}::jsonb) as x(client_id uuid, target_id uuid,
    cadence_id int, type text, day_number int, content_id uuid, size text, occurred_at timestamptz)
), up as (
  update targets t set
    impressions = t.impressions + d.imp,
    clicks = t.clicks + d.clk,
    views = t.views + d.vw,
    day_impressions = t.day_impressions + d.imp,
    day_clicks = t.day_clicks + d.clk,
    super_date = coalesce(t.super_date, d.super_at)
  from jsonb_to_recordset(${JSON.stringify(deltas)}::jsonb) as d(id uuid, imp int, clk int, vw int,
    super_at timestamptz)
  -- The id list lets the planner reach the rows by primary key instead of hashing the table.
  where t.id = d.id
    and t.id = any(array(select (jsonb_array_elements(${JSON.stringify(deltas)}::jsonb)->>'id')::uuid))
)
insert into feed_items (client_id, type, target_id, cadence_id, prospect_id, sales_rep_id, data, created_at)
select client_id, type, target_id, cadence_id, prospect_id, sales_rep_id, data, created_at
from jsonb_to_recordset(${JSON.stringify(feed)}::jsonb) as f(client_id uuid, type text, target_id uuid,
  cadence_id int, prospect_id uuid, sales_rep_id uuid, data jsonb, created_at timestamptz)
returning id::text as id, client_id::text as client_id, type, target_id::text as target_id, cadence_id,
  prospect_id::text as prospect_id, sales_rep_id::text as sales_rep_id, data,
  (extract(epoch from created_at) * 1000)::float8 as created_at`,
  );
  return result.rows.map((r) => ({
    ...r,
    id: Number(r.id),
    created_at: new Date(r.created_at).toISOString(),
  }));
}

/** Creates this month's and the next three months' event partitions if missing (migration 0003). */
export async function ensurePartitions(db: Db): Promise<void> {
  await db.transaction(async (tx) => {
    // Two instances starting together would race on CREATE TABLE ... PARTITION OF.
    await tx.execute(sql`select pg_advisory_xact_lock(727002)`);
    await tx.execute(sql`select ensure_engagement_partitions(0, 3)`);
  });
}
