import { eq } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import { uuidToBase58 } from '@rally/shared';
import type { AdSize } from '@rally/shared/schemas/content';
import { SUPER_RULE } from '@rally/shared/schemas/tracking';
import type { Database } from '../../db/client.ts';
import { content } from '../../db/schema/index.ts';
import type { EventType } from '../../db/schema/index.ts';
import { GroupCommit } from './group-commit.ts';
import { ensurePartitions, lockTargets, peekTarget, prospectInfo, writeEngagement } from './repository.ts';
import type {
  CounterDelta,
  EventRow,
  FeedRow,
  ProspectInfo,
  StoredFeedItem,
  TargetState,
} from './repository.ts';

/** ARCHITECTURE.md §5: a target is super at ≥ 1 click or ≥ 15 impressions within its cadence. */
export const SUPER_CLICKS = SUPER_RULE.clicks;
export const SUPER_IMPRESSIONS = SUPER_RULE.impressions;

export type IngestItem = {
  token: string;
  type: EventType;
  size?: AdSize | null;
  /** When it happened; now by default (the demo seed passes past times). */
  at?: Date;
  /** Record an impression even when the day has no content (demo data before content exists). */
  allowNoContent?: boolean;
};

export type IngestOutcome =
  | { status: 'unknown' }
  /** Known target, but ads are not running for it: nothing recorded. */
  | { status: 'ignored'; target: TargetState }
  | { status: 'recorded'; target: TargetState; becameSuper: boolean };

export type ContentRow = typeof content.$inferSelect;

type Deps = {
  database: Database;
  log: FastifyBaseLogger;
  /** Pushes a new feed item to open pages (the feed module's bus); called after commit. */
  publish: (clientId: string, item: StoredFeedItem) => void;
};

/**
 * Whether ads run for this target now: its cadence is active with ads on (`is_super`), the target is
 * still in the cadence, and its rep is selected (onboarding) and, when the cadence names reps
 * (`selected_sdrs`), one of them.
 */
export function adsRunFor(t: TargetState): boolean {
  if (t.cadenceStatus !== 'active' || !t.cadenceIsSuper || !t.isActive) return false;
  if (!t.rep?.selected) return false;
  return t.selectedSdrs.length === 0 || t.selectedSdrs.includes(t.rep.id);
}

const fullName = (first: string, last: string) => `${first} ${last}`.trim();

/** Where a click goes (issue 7): our landing page with the token, else the content's, site's or rep's link. */
export function clickDestination(t: TargetState): string | null {
  if (t.content?.landingPageId) {
    return `/lp/${uuidToBase58(t.content.landingPageId)}?t=${encodeURIComponent(t.token)}`;
  }
  for (const url of [t.content?.landingPageUrl, t.websiteUrl, t.rep?.calendarUrl]) {
    if (url && /^https?:\/\/\S+$/i.test(url)) return url;
  }
  return null;
}

type Running = { imp: number; clk: number; vw: number; superAt: Date | null; delta: CounterDelta };

/**
 * The engagement engine's write side (ARCHITECTURE.md §5): each event is appended and counted on
 * its target in the same transaction, with the superprospect rule applied under the target's row
 * lock, so concurrent requests give counters equal to the events and one super_date. Requests are
 * group-committed and answered after the commit.
 */
export function createTrackingService(deps: Deps) {
  const { database, log } = deps;
  const db = database.db;

  async function write(items: IngestItem[]): Promise<IngestOutcome[]> {
    const now = new Date();
    const { outcomes, feed } = await db.transaction(async (tx) => {
      const states = await lockTargets(tx, [...new Set(items.map((i) => i.token))]);
      const running = new Map<string, Running>();
      const events: EventRow[] = [];
      const feedRows: FeedRow[] = [];
      const outcomes = items.map((item): IngestOutcome => {
        const t = states.get(item.token);
        if (!t) return { status: 'unknown' };
        if (!adsRunFor(t) || (item.type === 'impression' && !t.content && !item.allowNoContent)) {
          return { status: 'ignored', target: t };
        }
        const at = item.at ?? now;
        let r = running.get(t.id);
        if (!r) {
          r = {
            imp: t.impressions,
            clk: t.clicks,
            vw: t.views,
            superAt: t.superAt === null ? null : new Date(t.superAt),
            delta: { id: t.id, imp: 0, clk: 0, vw: 0, super_at: null },
          };
          running.set(t.id, r);
        }
        if (item.type === 'impression') {
          r.imp++;
          r.delta.imp++;
        } else if (item.type === 'click') {
          r.clk++;
          r.delta.clk++;
        } else {
          r.vw++;
          r.delta.vw++;
        }
        events.push({
          client_id: t.clientId,
          target_id: t.id,
          cadence_id: t.cadenceId,
          type: item.type,
          day_number: t.dayNumber,
          content_id: t.content?.id ?? null,
          size: item.type === 'impression' ? (item.size ?? null) : null,
          occurred_at: at.toISOString(),
        });
        // Names are filled in below, in one read for the batch's feed items.
        const data = {
          first_name: '',
          last_name: '',
          company_name: null as string | null,
          cadence_name: t.cadenceName,
          sales_rep_name: t.rep ? fullName(t.rep.firstName, t.rep.lastName) : null,
          day_number: t.dayNumber,
          impressions: r.imp,
          clicks: r.clk,
          views: r.vw,
        };
        const feedRow = (type: FeedRow['type'], extra: Record<string, unknown> = {}): FeedRow => ({
          client_id: t.clientId,
          type,
          target_id: t.id,
          cadence_id: t.cadenceId,
          prospect_id: t.prospectId,
          sales_rep_id: t.salesRepId,
          data: { ...data, ...extra },
          created_at: at.toISOString(),
        });
        if (item.type !== 'impression') feedRows.push(feedRow(item.type));
        let becameSuper = false;
        if (r.superAt === null && (r.clk >= SUPER_CLICKS || r.imp >= SUPER_IMPRESSIONS)) {
          r.superAt = at;
          r.delta.super_at = at.toISOString();
          becameSuper = true;
          feedRows.push(feedRow('super', { reason: r.clk >= SUPER_CLICKS ? 'click' : 'impressions' }));
        }
        return { status: 'recorded', target: t, becameSuper };
      });
      if (feedRows.length > 0) {
        const names = await prospectInfo(tx, [...new Set(feedRows.map((f) => f.prospect_id))]);
        for (const f of feedRows) {
          const p = names.get(f.prospect_id);
          f.data.first_name = p?.firstName ?? '';
          f.data.last_name = p?.lastName ?? '';
          f.data.company_name = p?.companyName ?? null;
        }
      }
      const feed = events.length
        ? await writeEngagement(
            tx,
            events,
            [...running.values()].map((r) => r.delta),
            feedRows,
          )
        : [];
      return { outcomes, feed };
    });
    for (const item of feed) {
      try {
        deps.publish(item.client_id, item);
      } catch (err) {
        log.warn({ err }, 'feed publish failed');
      }
    }
    return outcomes;
  }

  // PGlite has one connection: one transaction at a time. On PostgreSQL a few run side by side; they
  // lock targets in id order, so they cannot deadlock.
  const ingest = new GroupCommit(write, {
    maxBatch: 256,
    concurrency: database.driver === 'pglite' ? 1 : 4,
  });

  const contentCache = new LRUCache<string, { version: number; row: ContentRow }>({ max: 2_000 });

  return {
    /** Records one event (group-committed); resolves once it is durable. */
    record(item: IngestItem): Promise<IngestOutcome> {
      return ingest.submit(item);
    },

    /** Records many events in order (seed, imports), in transactions of up to `chunk` events. */
    async recordMany(items: IngestItem[], chunk = 500): Promise<IngestOutcome[]> {
      const out: IngestOutcome[] = [];
      for (let i = 0; i < items.length; i += chunk) out.push(...(await write(items.slice(i, i + chunk))));
      return out;
    },

    /** A landing page view (POST /v1/rest/tracked/view and the landing page renderer). */
    recordView(token: string): Promise<IngestOutcome> {
      return ingest.submit({ token, type: 'view' });
    },

    /** The target of a token as it stands, without counting anything (bots, prefetches). */
    peek(token: string): Promise<TargetState | null> {
      return peekTarget(db, token);
    },

    /** The content row to render, cached by id and checked against the version the target saw. */
    async contentRow(ref: NonNullable<TargetState['content']>): Promise<ContentRow | null> {
      const hit = contentCache.get(ref.id);
      if (hit && hit.version === ref.version) return hit.row;
      const [row] = await db.select().from(content).where(eq(content.id, ref.id));
      if (row) contentCache.set(ref.id, { version: ref.version, row });
      return row ?? null;
    },

    /** A prospect's names, title and company (ads with prospect tags). */
    async prospect(id: string): Promise<ProspectInfo | null> {
      return (await prospectInfo(db, [id])).get(id) ?? null;
    },

    ensurePartitions: () => ensurePartitions(db),

    /** Waits for queued events to be written (shutdown). */
    drain: () => ingest.idle(),
  };
}

export type TrackingService = ReturnType<typeof createTrackingService>;
