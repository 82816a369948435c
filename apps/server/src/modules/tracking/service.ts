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
import { ensurePartitions, ingestBatch, peekTarget, prospectInfo } from './repository.ts';
import type { BatchItem, ProspectInfo, StoredFeedItem, TargetState } from './repository.ts';

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
 * (`selected_sdrs`), one of them. Decided in SQL (`stateCtes`), where the same rule picks which
 * events count, so the image served and the count cannot disagree.
 */
export function adsRunFor(t: TargetState): boolean {
  return t.adsRun;
}

/**
 * Where a click goes (issue 7): our landing page with the token, else the content's, site's or rep's
 * link; null when there is none (the click tag then answers the neutral page, status 200).
 */
export function clickDestination(t: TargetState): string | null {
  if (t.content?.landingPageId) {
    return `/lp/${uuidToBase58(t.content.landingPageId)}?t=${encodeURIComponent(t.token)}`;
  }
  for (const url of [t.content?.landingPageUrl, t.websiteUrl, t.rep?.calendarUrl]) {
    if (url && /^https?:\/\/\S+$/i.test(url)) return url;
  }
  return null;
}

/**
 * The engagement engine's write side (ARCHITECTURE.md §5): each event is appended and counted on
 * its target in the same statement, with the superprospect rule applied under the target's row
 * lock, so concurrent requests give counters equal to the events and one super_date. Requests are
 * group-committed and answered after the commit.
 */
export function createTrackingService(deps: Deps) {
  const { database, log } = deps;
  const db = database.db;

  async function write(items: IngestItem[]): Promise<IngestOutcome[]> {
    const now = new Date().toISOString();
    const batch: BatchItem[] = items.map((item, ord) => ({
      ord,
      token: item.token,
      type: item.type,
      size: item.size ?? null,
      at: item.at?.toISOString() ?? now,
      allow: item.allowNoContent === true,
    }));
    const result = await ingestBatch(db, batch, SUPER_RULE);
    for (const item of result.feed) {
      try {
        deps.publish(item.client_id, item);
      } catch (err) {
        log.warn({ err }, 'feed publish failed');
      }
    }
    return items.map((item, ord): IngestOutcome => {
      const target = result.states.get(item.token);
      if (!target) return { status: 'unknown' };
      if (!result.recorded.has(ord)) return { status: 'ignored', target };
      return { status: 'recorded', target, becameSuper: result.supers.has(ord) };
    });
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
