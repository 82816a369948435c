import { eq } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import { uuidToBase58 } from '@rally/shared';
import type { AdRendition } from '@rally/shared/schemas/content';
import { SUPER_RULE } from '@rally/shared/schemas/tracking';
import type { EngagementVerdict, VerdictReason } from '@rally/shared/schemas/tracking';
import type { Database } from '../../db/client.ts';
import { content } from '../../db/schema/index.ts';
import type { EventType } from '../../db/schema/index.ts';
import type { SuppressionKey } from '../suppressions/key.ts';
import { GroupCommit } from './group-commit.ts';
import { useTestTag } from './test-tags.ts';
import type { TestTagUse } from './test-tags.ts';
import {
  BURST_MARGIN_MS,
  VIEW_MARGIN_MS,
  enqueueEvents,
  ensurePartitions,
  foldQueue,
  ingestBatch,
  peekTarget,
  peekVersioned,
  queuePending,
  vacuumQueue,
} from './repository.ts';
import type { BatchItem, QueueItem, StoredFeedItem, TargetState, VersionedState } from './repository.ts';

/** ARCHITECTURE.md §5: a target is super at ≥ 1 click or ≥ 15 impressions within its cadence. */
export const SUPER_CLICKS = SUPER_RULE.clicks;
export const SUPER_IMPRESSIONS = SUPER_RULE.impressions;

export type IngestItem = {
  token: string;
  type: EventType;
  size?: AdRendition | null;
  /** When it happened; now by default (the demo seed passes past times). */
  at?: Date;
  /** Record an impression even when the day has no content (demo data before content exists). */
  allowNoContent?: boolean;
  /**
   * The request's verdict (verdict.ts); a person's by default. Only a person's events count; the
   * others are kept uncounted with their reason (decision 0017).
   */
  verdict?: EngagementVerdict;
  reason?: VerdictReason;
};

export type IngestOutcome =
  | { status: 'unknown' }
  /** Known target, but ads are not running for it: nothing recorded. */
  | { status: 'ignored'; target: TargetState }
  | { status: 'recorded'; target: TargetState };

export type ContentRow = typeof content.$inferSelect;

type Deps = {
  database: Database;
  log: FastifyBaseLogger;
  /** Pushes a new feed item to open pages (the feed module's bus); called after commit. */
  publish: (clientId: string, item: StoredFeedItem) => void;
  /** A person's click with another fetch of its tag this close is a scanner's; 0 turns it off. */
  burstMs?: number;
  /**
   * How long a person's click to our landing page waits for the page's view from a browser before
   * it is judged a scanner's fetch of the link; 0 turns the rule off.
   */
  viewWaitMs?: number;
  /** The key of the suppression list's hashes (decision 0027): suppressed people's ads do not run. */
  suppressionKey: SuppressionKey;
};

/**
 * Whether ads run for this target now: its cadence is active with ads on (`is_super`), the target is
 * still in the cadence, and its rep is selected (onboarding) and, when the cadence names reps
 * (`selected_sdrs`), one of them; it is not held out and its person is not suppressed. Decided in SQL (`stateCtes`), where the same rule picks which
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

/** Whether a click goes to our own landing page, which counts a view when a browser loads it. */
function leadsToLandingPage(t: TargetState): boolean {
  return clickDestination(t)?.startsWith('/lp/') === true;
}

/** Whether an event counts for a target in this state (the same rule as the `e` CTE of `ingestBatch`). */
function countsFor(state: TargetState, item: IngestItem): boolean {
  return (
    state.adsRun && (item.type !== 'impression' || state.content !== null || item.allowNoContent === true)
  );
}

/** The consumer takes up to this many queued events per transaction. */
const FOLD_BATCH = 5_000;
/**
 * Least time between the starts of two folds under load, so each fold amortises its statement
 * (and a target hit several times in it is updated once). At rest a fold starts at once.
 */
const FOLD_GAP_MS = 200;
/**
 * Events folded between two vacuums of the queue by the consumer (PostgreSQL; see vacuumQueue): at
 * 10,000 a second, one every two seconds, about 10 ms each.
 */
export const QUEUE_VACUUM_EVENTS = 20_000;
/** How often the queue is looked at without being told (another process's leftovers, a restart). */
const FOLD_POLL_MS = 1_000;
/** Targets' states kept per process; an entry is read again after a minute at the latest. */
const STATE_CACHE_MAX = 100_000;
const STATE_CACHE_TTL_MS = 60_000;
/** Decisions refused for a changed state before a request is decided under the target's row lock. */
const CACHED_ATTEMPTS = 3;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The engagement engine's write side (ARCHITECTURE.md §5, issue 19). A tag request decides from a
 * per-process cache of its target's state whether its event counts, appends it to the ingest queue
 * (group-committed; the request is answered once it is durable), and one consumer folds the queue
 * into the events, the counters with the superprospect rule and the feed shortly after (at once at
 * rest; under load within the fold gap and one fold, well within the second the architecture
 * allows). The cached decision holds only if the
 * client's state version is still the one the state was read at; the append checks it in its
 * statement, and a refused decision is made again from a fresh read. Seeds and imports
 * (`recordMany`) count in the same statement that appends, under the targets' row locks.
 */
export function createTrackingService(deps: Deps) {
  const { database, log, suppressionKey } = deps;
  const burstMs = deps.burstMs ?? 0;
  const viewWaitMs = deps.viewWaitMs ?? 0;
  const db = database.db;
  const single = database.driver === 'pglite';

  function publish(feed: StoredFeedItem[]): void {
    for (const item of feed) {
      try {
        deps.publish(item.client_id, item);
      } catch (err) {
        log.warn({ err }, 'feed publish failed');
      }
    }
  }

  async function write(items: IngestItem[]): Promise<IngestOutcome[]> {
    const now = new Date().toISOString();
    const batch: BatchItem[] = items.map((item, ord) => ({
      ord,
      token: item.token,
      type: item.type,
      size: item.size ?? null,
      at: item.at?.toISOString() ?? now,
      allow: item.allowNoContent === true,
      verdict: item.verdict ?? 'person',
      reason: item.reason ?? null,
    }));
    const result = await ingestBatch(db, batch, SUPER_RULE, suppressionKey);
    publish(result.feed);
    return items.map((item, ord): IngestOutcome => {
      const target = result.states.get(item.token);
      if (!target) return { status: 'unknown' };
      if (!result.recorded.has(ord)) return { status: 'ignored', target };
      return { status: 'recorded', target };
    });
  }

  // PGlite has one connection: one transaction at a time. On PostgreSQL a few run side by side; they
  // lock targets in id order, so they cannot deadlock.
  const locked = new GroupCommit(write, { maxBatch: 256, concurrency: single ? 1 : 4 });

  // The state cache: by token, with the client's version it was read at. `newest` holds the newest
  // version seen per client, so one refused append retires every older entry of that client.
  const states = new LRUCache<string, VersionedState>({ max: STATE_CACHE_MAX, ttl: STATE_CACHE_TTL_MS });
  const newest = new Map<string, number>();
  const loading = new Map<string, Promise<VersionedState | null>>();

  function learn(clientId: string, version: number): void {
    if (version > (newest.get(clientId) ?? 0)) newest.set(clientId, version);
  }

  async function stateOf(token: string): Promise<VersionedState | null> {
    const hit = states.get(token);
    if (hit && hit.version >= (newest.get(hit.state.clientId) ?? 0)) return hit;
    let load = loading.get(token);
    if (!load) {
      load = peekVersioned(db, token, suppressionKey).finally(() => loading.delete(token));
      loading.set(token, load);
    }
    const read = await load;
    if (!read) {
      states.delete(token);
      return null;
    }
    learn(read.state.clientId, read.version);
    states.set(token, read);
    return read;
  }

  const appender = new GroupCommit<QueueItem, boolean>(
    async (items) => {
      const batch = items.map((item, ord) => ({ ...item, ord }));
      const { held, versions } = await enqueueEvents(db, batch);
      for (const [clientId, version] of versions) learn(clientId, version);
      if (batch.some((item) => item.count && held.has(item.ord))) scheduleFold();
      // A person's click waits out its burst window in the queue; fold it when that has passed.
      if (burstMs > 0 && batch.some((i) => i.count && i.type === 'click' && i.verdict === 'person')) {
        setTimeout(scheduleFold, burstMs + BURST_MARGIN_MS + 10).unref();
      }
      // One that waits for its landing page's view: fold when the wait is over (a view folds it sooner).
      if (viewWaitMs > 0 && batch.some((i) => i.count && i.awaitsView && held.has(i.ord))) {
        setTimeout(scheduleFold, viewWaitMs + VIEW_MARGIN_MS + 10).unref();
      }
      return batch.map((item) => held.has(item.ord));
    },
    // Up to four appends at once, but one beside another only for 16 waiting items or more (issue 43).
    { maxBatch: 256, concurrency: single ? 1 : 4, gather: 16 },
  );

  async function record(item: IngestItem): Promise<IngestOutcome> {
    const at = (item.at ?? new Date()).toISOString();
    for (let attempt = 0; attempt < CACHED_ATTEMPTS; attempt++) {
      const read = await stateOf(item.token);
      if (!read) return { status: 'unknown' };
      const { state } = read;
      const count = countsFor(state, item);
      const held = await appender.submit({
        ord: 0,
        clientId: state.clientId,
        version: read.version,
        count,
        targetId: state.id,
        cadenceId: state.cadenceId,
        type: item.type,
        dayNumber: state.dayNumber,
        contentId: state.content?.id ?? null,
        size: item.size ?? null,
        at,
        verdict: item.verdict ?? 'person',
        reason: item.reason ?? 'browser',
        awaitsView: viewWaitMs > 0 && item.type === 'click' && leadsToLandingPage(state),
      });
      if (held) return count ? { status: 'recorded', target: state } : { status: 'ignored', target: state };
      states.delete(item.token);
    }
    // The client's state kept changing under the request: decide under the target's row lock.
    return locked.submit({ ...item, at: new Date(at) });
  }

  // The consumer. One fold runs at a time in this process (and across processes: an advisory lock).
  let folding: Promise<void> | undefined;
  let foldAgain = false;
  let foldTimer: NodeJS.Timeout | undefined;
  let lastFoldStart = 0;
  let foldedSinceVacuum = 0;
  let poll: NodeJS.Timeout | undefined;
  let closed = false;

  function scheduleFold(): void {
    if (folding) {
      foldAgain = true;
      return;
    }
    if (foldTimer || closed) return;
    const wait = Math.max(0, lastFoldStart + FOLD_GAP_MS - Date.now());
    foldTimer = setTimeout(() => {
      foldTimer = undefined;
      void runFolds();
    }, wait);
  }

  function runFolds(): Promise<void> {
    folding ??= (async () => {
      try {
        do {
          foldAgain = false;
          lastFoldStart = Date.now();
          const { taken, feed } = await foldQueue(db, FOLD_BATCH, SUPER_RULE, burstMs, viewWaitMs);
          publish(feed);
          foldedSinceVacuum += Math.max(0, taken);
          if (!single && foldedSinceVacuum >= QUEUE_VACUUM_EVENTS) {
            foldedSinceVacuum = 0;
            await vacuumQueue(db).catch((err: unknown) => log.warn({ err }, 'ingest queue vacuum failed'));
          }
          // A full batch means the queue is behind: go on at once; else let the next batch gather.
          // Another process folding (-1) may have started before this one's events were appended:
          // try again after the gap rather than leave them to the poll.
          if (taken === FOLD_BATCH) foldAgain = true;
          else if (foldAgain || taken < 0) {
            foldAgain = true;
            await sleep(Math.max(0, lastFoldStart + FOLD_GAP_MS - Date.now()));
          }
        } while (foldAgain && !closed);
      } catch (err) {
        // The events stay queued; the next fold (at the latest the poll's) takes them again.
        log.error({ err }, 'ingest fold failed');
      } finally {
        folding = undefined;
      }
    })();
    return folding;
  }

  /**
   * The poll's fold: only when something is queued. On the embedded database the fold's statement
   * costs about 9 ms even on an empty queue (its CTEs and the lock), the look about 1 ms, and every
   * instance polls each second: over a third of the API test files, 983 folds ran before and 165
   * after (most were polls of idle test apps). Events appended after the look are folded by their
   * own write's schedule, or by the next poll.
   */
  async function pollFold(): Promise<void> {
    if (folding || closed) return;
    try {
      if (!(await queuePending(db))) return;
    } catch (err) {
      log.warn({ err }, 'ingest queue poll failed');
      return;
    }
    await runFolds();
  }

  async function settle(deadline: number): Promise<void> {
    await appender.idle();
    await locked.idle();
    while (Date.now() < deadline) {
      await runFolds();
      if (!(await queuePending(db))) return;
      // Clicks wait out their burst window in the queue (decision 0017).
      await sleep(burstMs > 0 || viewWaitMs > 0 ? 50 : 10);
    }
    throw new Error('ingest queue not folded in time');
  }

  // Callers share settles: one running, and at most one waiting to start after it (which covers
  // everything appended before any of its callers called), however many callers there are.
  let settling: Promise<void> | undefined;
  let nextSettle: Promise<void> | undefined;

  /** Resolves once every event appended before the call has been folded (by any process). */
  function settled(deadline = Date.now() + 30_000): Promise<void> {
    if (!settling) {
      settling = settle(deadline).finally(() => {
        settling = undefined;
      });
      return settling;
    }
    nextSettle ??= settling
      .catch(() => undefined)
      .then(() => {
        nextSettle = undefined;
        return settled(deadline);
      });
    return nextSettle;
  }

  const contentCache = new LRUCache<string, { version: number; row: ContentRow }>({ max: 2_000 });

  return {
    /**
     * Records one event; resolves once it is durable. Its counters, the superprospect rule and the
     * feed follow within the fold (`settled` waits for it).
     */
    record,

    /** Records many events in order (seed, imports), in transactions of up to `chunk` events. */
    async recordMany(items: IngestItem[], chunk = 500): Promise<IngestOutcome[]> {
      const out: IngestOutcome[] = [];
      for (let i = 0; i < items.length; i += chunk) out.push(...(await write(items.slice(i, i + chunk))));
      return out;
    },

    /** A landing page view (POST /v1/rest/tracked/view and the landing page renderer). */
    recordView(token: string): Promise<IngestOutcome> {
      return record({ token, type: 'view' });
    },

    /**
     * Whether a tag or landing page request carries a test e-mail's id for this token (issue 38):
     * then it is served and marked on the test, and not counted.
     */
    testTag(testId: string, token: string, use: TestTagUse): Promise<boolean> {
      return useTestTag(db, testId, token, use);
    },

    /** The target of a token as it stands, without counting anything (bots, prefetches). */
    peek(token: string): Promise<TargetState | null> {
      return peekTarget(db, token, suppressionKey);
    },

    /** The content row to render, cached by id and checked against the version the target saw. */
    async contentRow(ref: NonNullable<TargetState['content']>): Promise<ContentRow | null> {
      const hit = contentCache.get(ref.id);
      if (hit && hit.version === ref.version) return hit.row;
      const [row] = await db.select().from(content).where(eq(content.id, ref.id));
      if (row) contentCache.set(ref.id, { version: ref.version, row });
      return row ?? null;
    },

    ensurePartitions: () => ensurePartitions(db),

    settled: () => settled(),

    /**
     * Folds what an earlier process left queued (a crash between answer and fold), unless another
     * process is folding, then starts the consumer's poll (other processes' leftovers).
     */
    async start(): Promise<void> {
      if (poll || closed) return;
      for (;;) {
        const { taken, feed } = await foldQueue(db, FOLD_BATCH, SUPER_RULE, burstMs, viewWaitMs);
        publish(feed);
        if (taken < FOLD_BATCH) break;
      }
      poll = setInterval(() => void pollFold(), FOLD_POLL_MS);
      poll.unref();
    },

    /** Stops the consumer after writing and folding what is queued (shutdown). */
    async drain(): Promise<void> {
      clearInterval(poll);
      poll = undefined;
      try {
        await settled(Date.now() + 5_000);
      } catch (err) {
        log.warn({ err }, 'ingest queue left for the next start');
      }
      closed = true;
      clearTimeout(foldTimer);
      await folding;
    },
  };
}

export type TrackingService = ReturnType<typeof createTrackingService>;
