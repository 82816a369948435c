import { sql } from 'drizzle-orm';
import { FEED_ITEM_TYPES, FEED_MAX_OFFSET } from '@rally/shared/schemas/feed';
import type { EngagementLast, FeedItem, FeedItemType, SuperToday } from '@rally/shared/schemas/feed';
import type { Db } from '../../db/client.ts';
import { uncountedInRange } from '../tracking/uncounted.ts';
import { toFeedItem } from './items.ts';
import type { NewFeedItem, StoredFeedItem } from './items.ts';

/**
 * The SQL of the feed. Values come back as text, int or epoch milliseconds: the two drivers parse
 * bigints, uuids and timestamps differently.
 */
function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

const DAY_MS = 86_400_000;

type Row = {
  id: string;
  type: string;
  target_id: string | null;
  prospect_id: string | null;
  cadence_id: number | null;
  sales_rep_id: string | null;
  data: Record<string, unknown> | null;
  created_ms: number;
};
type NamedRow = Row & {
  first_name: string | null;
  last_name: string | null;
  company_name: string | null;
  cadence_name: string | null;
  rep_first: string | null;
  rep_last: string | null;
};

const columns = sql`f.id::text as id, f.type, f.target_id::text as target_id,
  f.prospect_id::text as prospect_id, f.cadence_id, f.sales_rep_id::text as sales_rep_id, f.data,
  (extract(epoch from f.created_at) * 1000)::float8 as created_ms`;

const stored = (r: Row): StoredFeedItem => ({ ...r, created_at: new Date(r.created_ms) });
const name = (...parts: (string | null)[]) => parts.filter((p) => p && p.trim()).join(' ') || undefined;

export async function insertFeedItem(db: Db, input: NewFeedItem): Promise<StoredFeedItem> {
  const result = await db.execute(sql`
    insert into feed_items as f (client_id, type, target_id, cadence_id, prospect_id, sales_rep_id, data)
    values (${input.clientId}, ${input.type}, ${input.targetId ?? null}, ${input.cadenceId ?? null},
      ${input.prospectId ?? null}, ${input.salesRepId ?? null}, ${JSON.stringify(input.data ?? {})}::jsonb)
    returning ${columns}`);
  const row = rowsOf<Row>(result)[0];
  if (!row) throw new Error('feed item insert returned nothing');
  return stored(row);
}

/** What a sync item says: the client, the source, and what the integration (or cadence) holds now. */
export async function syncSubject(db: Db, integrationId: number, cadenceId?: number) {
  const result = await db.execute(sql`
    select i.client_id::text as client_id, i.source,
      (select name from cadences where id = ${cadenceId ?? null}::int and integration_id = i.id) as cadence_name,
      (select count(*)::int from cadences where integration_id = i.id) as cadences,
      (select count(*)::int from targets t join cadences c on c.id = t.cadence_id
        where c.integration_id = i.id and (${cadenceId ?? null}::int is null or c.id = ${cadenceId ?? null}::int)) as targets
    from integrations i where i.id = ${integrationId}`);
  const r = rowsOf<{
    client_id: string;
    source: string;
    cadence_name: string | null;
    cadences: number;
    targets: number;
  }>(result)[0];
  return r
    ? {
        clientId: r.client_id,
        source: r.source,
        cadenceName: r.cadence_name,
        cadences: r.cadences,
        targets: r.targets,
      }
    : null;
}

export type FeedFilter = { clientId: string; type?: FeedItemType | undefined; untilId?: number | undefined };

const where = (f: FeedFilter) =>
  sql.join(
    [
      sql`f.client_id = ${f.clientId}`,
      ...(f.type ? [sql`f.type = ${f.type}`] : []),
      // "The list as it stood" at the item until_id: what existed then (a lower id), and anything
      // older than that item in the list's order. An item stored later but dated earlier (a backfill,
      // a seeder writing history out of order) belongs before the cut too, or a later page, cut by
      // id alone, skips it while the total counts it.
      ...(f.untilId
        ? [
            sql`(f.id <= ${f.untilId} or (f.created_at, f.id) < (select u.created_at, u.id from feed_items u
              where u.id = ${f.untilId} and u.client_id = ${f.clientId}))`,
          ]
        : []),
    ],
    sql` and `,
  );

/** Items newest first, with the current names of prospect, company, cadence and rep. */
export async function feedPage(db: Db, f: FeedFilter, offset: number, limit: number): Promise<FeedItem[]> {
  const result = await db.execute(sql`
    select ${columns}, p.first_name, p.last_name, co.name as company_name, cd.name as cadence_name,
      r.first_name as rep_first, r.last_name as rep_last
    from feed_items f
    left join prospects p on p.id = f.prospect_id and p.client_id = f.client_id
    left join companies co on co.id = p.company_id
    left join cadences cd on cd.id = f.cadence_id and cd.client_id = f.client_id
    left join sales_reps r on r.id = f.sales_rep_id and r.client_id = f.client_id
    where ${where(f)}
    order by f.created_at desc, f.id desc
    limit ${limit} offset ${offset}`);
  return rowsOf<NamedRow>(result).map((r) =>
    toFeedItem(stored(r), {
      ...(r.first_name !== null ? { prospect_name: name(r.first_name, r.last_name) ?? null } : {}),
      ...(r.company_name !== null ? { company_name: r.company_name } : {}),
      ...(r.cadence_name !== null ? { cadence_name: r.cadence_name } : {}),
      ...(r.rep_first !== null ? { sales_rep_name: name(r.rep_first, r.rep_last) ?? null } : {}),
    }),
  );
}

/** How many items the filter selects, counting no further than FEED_MAX_OFFSET + 1. */
export async function feedCount(db: Db, f: FeedFilter): Promise<{ total: number; capped: boolean }> {
  const result = await db.execute(sql`
    select count(*)::int as n from (
      select 1 from feed_items f where ${where(f)} limit ${FEED_MAX_OFFSET + 1}) x`);
  const n = rowsOf<{ n: number }>(result)[0]?.n ?? 0;
  return { total: Math.min(n, FEED_MAX_OFFSET), capped: n > FEED_MAX_OFFSET };
}

/** New items after `afterId` (a reconnecting stream's Last-Event-ID), oldest first, at most 100. */
export async function feedAfter(db: Db, clientId: string, afterId: number): Promise<FeedItem[]> {
  const result = await db.execute(sql`
    select ${columns} from feed_items f
    where f.client_id = ${clientId} and f.id > ${afterId}
    order by f.id limit 100`);
  return rowsOf<Row>(result).map((r) => toFeedItem(stored(r)));
}

/**
 * The client's newest feed item id (0 when it has none): where a new stream starts. Read through
 * the (client, created_at) index: ids and creation times rise together.
 */
export async function feedNewestId(db: Db, clientId: string): Promise<number> {
  const result = await db.execute(sql`
    select coalesce(max(n.id), 0)::text as id from (
      select f.id from feed_items f where f.client_id = ${clientId}
      order by f.created_at desc limit 20) n`);
  return Number(rowsOf<{ id: string }>(result)[0]?.id ?? 0);
}

export async function feedSummary(db: Db, clientId: string, now: Date) {
  const [latest, counts] = await Promise.all([
    db.execute(sql`
      select f.id::text as id, (extract(epoch from f.created_at) * 1000)::float8 as created_ms
      from feed_items f where f.client_id = ${clientId}
      order by f.created_at desc, f.id desc limit 1`),
    db.execute(sql`
      select f.type, count(*)::int as n from feed_items f
      where f.client_id = ${clientId} and f.created_at > ${new Date(now.getTime() - 7 * DAY_MS).toISOString()}::timestamptz
      group by f.type`),
  ]);
  const top = rowsOf<{ id: string; created_ms: number }>(latest)[0];
  const byType = Object.fromEntries(FEED_ITEM_TYPES.map((t) => [t, 0])) as Record<FeedItemType, number>;
  for (const r of rowsOf<{ type: string; n: number }>(counts)) {
    if (r.type in byType) byType[r.type as FeedItemType] = r.n;
  }
  return {
    latest_id: top ? Number(top.id) : null,
    latest_at: top ? new Date(top.created_ms).toISOString() : null,
    last_7_days: byType,
  };
}

/** Start of the UTC day of `now`. There is no per-client time zone setting yet. */
const utcDay = (now: Date) => Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());

/** Targets that became super today and yesterday (targets_client_super_idx). */
export async function superToday(db: Db, clientId: string, now: Date): Promise<SuperToday> {
  const today = utcDay(now);
  const at = (ms: number) => new Date(ms).toISOString();
  const result = await db.execute(sql`
    select count(*) filter (where super_date >= ${at(today)}::timestamptz)::int as today,
      count(*) filter (where super_date < ${at(today)}::timestamptz)::int as yesterday
    from targets
    where client_id = ${clientId} and super_date is not null
      and super_date >= ${at(today - DAY_MS)}::timestamptz and super_date < ${at(today + DAY_MS)}::timestamptz`);
  const r = rowsOf<{ today: number; yesterday: number }>(result)[0];
  return {
    date: at(today).slice(0, 10),
    time_zone: 'UTC',
    count: r?.today ?? 0,
    yesterday: r?.yesterday ?? 0,
  };
}

/** Impressions, clicks and views of the last 7 days and the 7 before, and the latest event. */
export async function engagementLast(db: Db, clientId: string, now: Date): Promise<EngagementLast> {
  const since = new Date(now.getTime() - 14 * DAY_MS).toISOString();
  const split = new Date(now.getTime() - 7 * DAY_MS).toISOString();
  const [counts, last, uncounted] = await Promise.all([
    db.execute(sql`
      select e.type, (e.occurred_at > ${split}::timestamptz) as recent, count(*)::int as n
      from engagement_events e
      where e.client_id = ${clientId} and e.occurred_at > ${since}::timestamptz
        and e.occurred_at <= ${now.toISOString()}::timestamptz
      group by 1, 2`),
    db.execute(sql`
      select e.type, (extract(epoch from e.occurred_at) * 1000)::float8 as at_ms,
        p.first_name, p.last_name, cd.name as cadence_name
      from (select * from engagement_events where client_id = ${clientId}
            order by occurred_at desc limit 1) e
      left join targets t on t.id = e.target_id
      left join prospects p on p.id = t.prospect_id
      left join cadences cd on cd.id = e.cadence_id`),
    // The same 7 days as the counts; `now` included, as there.
    uncountedInRange(db, clientId, split, new Date(now.getTime() + 1)),
  ]);
  const out: EngagementLast = {
    impressions: 0,
    clicks: 0,
    views: 0,
    previous: { impressions: 0, clicks: 0, views: 0 },
    uncounted,
    last_event: null,
  };
  const field = { impression: 'impressions', click: 'clicks', view: 'views' } as const;
  for (const r of rowsOf<{ type: keyof typeof field; recent: boolean; n: number }>(counts)) {
    const key = field[r.type];
    if (!key) continue;
    if (r.recent) out[key] += r.n;
    else out.previous[key] += r.n;
  }
  const l = rowsOf<{
    type: 'impression' | 'click' | 'view';
    at_ms: number;
    first_name: string | null;
    last_name: string | null;
    cadence_name: string | null;
  }>(last)[0];
  if (l) {
    out.last_event = {
      type: l.type,
      at: new Date(l.at_ms).toISOString(),
      prospect_name: name(l.first_name, l.last_name) ?? null,
      cadence_name: l.cadence_name,
    };
  }
  return out;
}
