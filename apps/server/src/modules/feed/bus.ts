import { EventEmitter } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import type { FeedItem } from '@rally/shared/schemas/feed';
import type { Db } from '../../db/client.ts';
import type { RedisLink } from '../../lib/redis.ts';
import { toFeedItem } from './items.ts';
import type { NewFeedItem, StoredFeedItem } from './items.ts';
import { insertFeedItem, syncSubject } from './repository.ts';

export type FeedListener = (item: FeedItem) => void;

export type FeedBus = {
  /**
   * Pushes a stored item to every open feed page of the client, on this instance and, with
   * REDIS_URL, on every other. Call after the transaction that stored it commits. Never throws.
   */
  publish(clientId: string, item: StoredFeedItem | FeedItem): void;
  /** Stores an item and publishes it (for callers outside a transaction: syncs, imports). */
  add(input: NewFeedItem): Promise<FeedItem>;
  /** A 'sync' item for a finished sync of an integration (or of one of its cadences). */
  recordSync(integrationId: number, cadenceId?: number): Promise<FeedItem | null>;
  /** Follows a client's new items; resolves once the subscription is live (Redis included). */
  subscribe(clientId: string, listener: FeedListener): Promise<() => void>;
  /** Open feed pages of the client on this instance. */
  followers(clientId: string): number;
  close(): Promise<void>;
};

/** How long a new page waits for its Redis subscription while Redis is not answering. */
const SUBSCRIBE_WAIT_MS = 1_000;
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** After REDIS_PREFIX (lib/redis.ts). */
const CHANNEL = 'feed:';
const isWire = (item: StoredFeedItem | FeedItem): item is FeedItem =>
  'detail' in item && typeof item.id === 'number';

/**
 * The live side of the feed (ARCHITECTURE.md §3: "Redis ... pub/sub for live feed updates when
 * several server instances run. Without it, in-process equivalents"). One Redis channel per client,
 * subscribed while this instance has an open page of that client; a publish goes through Redis
 * only, so the publishing instance hears it back like the others and nothing is delivered twice.
 */
export function createFeedBus(deps: {
  db: Db;
  redis?: RedisLink | undefined;
  log: FastifyBaseLogger;
}): FeedBus {
  const { db, log, redis } = deps;
  const local = new EventEmitter();
  local.setMaxListeners(0);
  const onMessage = (clientId: string, message: string) => {
    try {
      local.emit(clientId, JSON.parse(message) as FeedItem);
    } catch (err) {
      log.warn({ err }, 'feed: unreadable message');
    }
  };

  /** Each followed client's Redis subscription, resolving to its way out. */
  const subscribed = new Map<string, Promise<() => Promise<void>>>();
  const emitLocal = (clientId: string, item: FeedItem) => {
    try {
      local.emit(clientId, item);
    } catch (err) {
      log.warn({ err }, 'feed: a listener failed');
    }
  };

  const bus: FeedBus = {
    publish(clientId, raw) {
      let item: FeedItem;
      try {
        item = isWire(raw) ? raw : toFeedItem(raw);
      } catch (err) {
        log.warn({ err }, 'feed: item not publishable');
        return;
      }
      if (!redis) return emitLocal(clientId, item);
      redis.publish(CHANNEL + clientId, JSON.stringify(item)).catch((err: unknown) => {
        // Redis is down: this instance's pages still hear it.
        log.warn({ err }, 'feed: redis publish failed; delivered on this instance only');
        emitLocal(clientId, item);
      });
    },

    async add(input) {
      const item = toFeedItem(await insertFeedItem(db, input));
      bus.publish(input.clientId, item);
      return item;
    },

    async recordSync(integrationId, cadenceId) {
      const subject = await syncSubject(db, integrationId, cadenceId);
      if (!subject) return null;
      return bus.add({
        clientId: subject.clientId,
        type: 'sync',
        cadenceId: cadenceId ?? null,
        data: {
          source: subject.source,
          ...(subject.cadenceName ? { cadence_name: subject.cadenceName } : {}),
          cadences: subject.cadences,
          targets: subject.targets,
        },
      });
    },

    async subscribe(clientId, listener) {
      local.on(clientId, listener);
      if (redis) {
        // The first page of a client subscribes; the others wait for that subscription too.
        let live = subscribed.get(clientId);
        if (!live) {
          live = redis.subscribe(CHANNEL + clientId, (m) => onMessage(clientId, m));
          subscribed.set(clientId, live);
        }
        try {
          // Redis away: the page follows this instance's items now; the subscription completes
          // when Redis is back, and the page is then sent to reconnect for what it missed (routes.ts).
          await (redis.listening() ? live : Promise.race([live, delay(SUBSCRIBE_WAIT_MS)]));
        } catch (err) {
          local.off(clientId, listener);
          if (subscribed.get(clientId) === live) subscribed.delete(clientId);
          throw err;
        }
      }
      return () => {
        local.off(clientId, listener);
        const live = subscribed.get(clientId);
        if (live && local.listenerCount(clientId) === 0) {
          subscribed.delete(clientId);
          live.then((off) => off()).catch((err: unknown) => log.warn({ err }, 'feed: unsubscribe'));
        }
      };
    },

    followers(clientId) {
      return local.listenerCount(clientId);
    },

    async close() {
      // The Redis connections are the app's (closed with it).
      local.removeAllListeners();
    },
  };
  return bus;
}
