import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';

/**
 * The SQL of the ingest path. Raw statements with one JSON parameter each, so that a whole batch is
 * one round trip per statement on PGlite and PostgreSQL alike. Values come back as text, int,
 * boolean or float8 (epoch ms) only: the two drivers parse uuids, bigints and timestamps
 * differently.
 */
export type Tx = Pick<Db, 'execute'>;

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
  prospect: { firstName: string; lastName: string; companyName: string | null };
  /** The client's website (client settings), '' when unset. */
  websiteUrl: string;
  /** The first published, non-archived content of the target's current day, if any. */
  content: { id: string; version: number; landingPageId: string | null; landingPageUrl: string } | null;
};

type StateRow = {
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
  cadence_status: string;
  is_super: boolean;
  selected_sdrs: unknown;
  rep_selected: boolean | null;
  rep_first_name: string | null;
  rep_last_name: string | null;
  rep_title: string | null;
  rep_company_name: string | null;
  rep_calendar_url: string | null;
  rep_photo_url: string | null;
  first_name: string;
  last_name: string;
  company_name: string | null;
  website_url: string;
  content_id: string | null;
  content_version: number | null;
  landing_page_id: string | null;
  landing_page_url: string | null;
};

const UUID_TEXT = `'^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'`;

// The day's content is the first content_days entry naming published, non-archived content of the
// same client; a malformed id in the JSON is skipped rather than failing the cast.
const SELECT_STATE = sql.raw(`
select t.id::text as id, t.token, t.client_id::text as client_id, t.cadence_id,
  t.prospect_id::text as prospect_id, t.sales_rep_id::text as sales_rep_id, t.day_number,
  t.is_active, t.impressions, t.clicks, t.views,
  (extract(epoch from t.super_date) * 1000)::float8 as super_at,
  c.name as cadence_name, c.status as cadence_status, c.is_super, c.selected_sdrs,
  r.selected as rep_selected, r.first_name as rep_first_name, r.last_name as rep_last_name,
  r.title as rep_title, r.company_name as rep_company_name, r.calendar_url as rep_calendar_url,
  r.photo_url as rep_photo_url,
  p.first_name, p.last_name, co.name as company_name,
  coalesce(cs.website_url, '') as website_url,
  ct.id::text as content_id, ct.version as content_version,
  ct.landing_page_id::text as landing_page_id, ct.landing_page_url
from targets t
join cadences c on c.id = t.cadence_id
join prospects p on p.id = t.prospect_id
left join companies co on co.id = p.company_id
left join sales_reps r on r.id = t.sales_rep_id
left join client_settings cs on cs.client_id = t.client_id
left join lateral (
  select x.id, (extract(epoch from coalesce(x.updated_at, x.created_at)) * 1000)::float8 as version,
    x.landing_page_id, x.landing_page_url
  from cadence_days cd
  cross join lateral jsonb_array_elements(
    case when jsonb_typeof(cd.content_days) = 'array' then cd.content_days else '[]'::jsonb end
  ) with ordinality as e(item, n)
  join content x on x.id = case when e.item->>'content_id' ~ ${UUID_TEXT}
    then (e.item->>'content_id')::uuid end
  where cd.cadence_id = t.cadence_id and cd.day_number = t.day_number
    and x.client_id = t.client_id and x.status = 'published' and not x.is_archived
  order by e.n
  limit 1
) ct on true
`);

function toState(r: StateRow): TargetState {
  return {
    id: r.id,
    token: r.token,
    clientId: r.client_id,
    cadenceId: r.cadence_id,
    prospectId: r.prospect_id,
    salesRepId: r.sales_rep_id,
    dayNumber: r.day_number,
    isActive: r.is_active,
    impressions: r.impressions,
    clicks: r.clicks,
    views: r.views,
    superAt: r.super_at,
    cadenceName: r.cadence_name,
    cadenceStatus: r.cadence_status,
    cadenceIsSuper: r.is_super,
    selectedSdrs: Array.isArray(r.selected_sdrs) ? r.selected_sdrs.map(String) : [],
    rep: r.sales_rep_id
      ? {
          id: r.sales_rep_id,
          selected: r.rep_selected ?? false,
          firstName: r.rep_first_name ?? '',
          lastName: r.rep_last_name ?? '',
          title: r.rep_title ?? '',
          companyName: r.rep_company_name ?? '',
          calendarUrl: r.rep_calendar_url ?? '',
          photoUrl: r.rep_photo_url,
        }
      : null,
    prospect: { firstName: r.first_name, lastName: r.last_name, companyName: r.company_name },
    websiteUrl: r.website_url,
    content: r.content_id
      ? {
          id: r.content_id,
          version: r.content_version ?? 0,
          landingPageId: r.landing_page_id,
          landingPageUrl: r.landing_page_url ?? '',
        }
      : null,
  };
}

function tokensParam(tokens: string[]): SQL {
  return sql`(select jsonb_array_elements_text(${JSON.stringify(tokens)}::jsonb))`;
}

/** The targets of these tokens, row-locked for the rest of the transaction, in id order (no deadlocks). */
export async function lockTargets(tx: Tx, tokens: string[]): Promise<Map<string, TargetState>> {
  const result = await tx.execute(
    sql`${SELECT_STATE} where t.token in ${tokensParam(tokens)} order by t.id for update of t`,
  );
  return new Map(rowsOf<StateRow>(result).map((r) => [r.token, toState(r)]));
}

/** One target by token, read without locking (uncounted traffic). */
export async function peekTarget(db: Tx, token: string): Promise<TargetState | null> {
  const result = await db.execute(sql`${SELECT_STATE} where t.token = ${token}`);
  const row = rowsOf<StateRow>(result)[0];
  return row ? toState(row) : null;
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
  const result = await tx.execute(sql`
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
  where t.id = d.id
)
insert into feed_items (client_id, type, target_id, cadence_id, prospect_id, sales_rep_id, data, created_at)
select client_id, type, target_id, cadence_id, prospect_id, sales_rep_id, data, created_at
from jsonb_to_recordset(${JSON.stringify(feed)}::jsonb) as f(client_id uuid, type text, target_id uuid,
  cadence_id int, prospect_id uuid, sales_rep_id uuid, data jsonb, created_at timestamptz)
returning id::text as id, client_id::text as client_id, type, target_id::text as target_id, cadence_id,
  prospect_id::text as prospect_id, sales_rep_id::text as sales_rep_id, data,
  (extract(epoch from created_at) * 1000)::float8 as created_at`);
  return rowsOf<StoredFeedRow>(result).map((r) => ({
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
