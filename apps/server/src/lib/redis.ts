import { EventEmitter } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type * as IORedis from 'ioredis';

/**
 * The instance's two Redis connections (REDIS_URL), shared by every feature: one for commands and
 * publishes (rate limits, feed items, invalidations), one that only subscribes. Every key starts
 * with REDIS_PREFIX and every channel too, with the database number after it when not 0: pub/sub
 * ignores database numbers, so two deployments on one Redis would otherwise hear each other.
 */
export type RedisLink = {
  keyPrefix: string;
  channelPrefix: string;
  client: Redis;
  subscriber: Redis;
  /**
   * Whether messages published now reach this instance: the subscriber is connected and has
   * (re)subscribed. While false, whatever depends on hearing other instances must not trust a cache.
   */
  listening(): boolean;
  /**
   * Follows a channel (its name after channelPrefix); resolves once subscribed. Handlers get the raw
   * message and must not throw.
   */
  subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>>;
  publish(channel: string, message: string): Promise<void>;
  /** Called each time the subscriber is connected again after a loss: messages may have been missed. */
  onResume(fn: () => void): void;
  /** Called when the subscriber loses its connection. */
  onLoss(fn: () => void): void;
  close(): Promise<void>;
};

export const DEFAULT_REDIS_PREFIX = 'rally:';

export function openRedis(url: string, prefix: string, log: FastifyBaseLogger): RedisLink {
  const db = Number(new URL(url).pathname.slice(1) || 0);
  const channelPrefix = db ? `${prefix}db${db}:` : prefix;
  // Reconnect for ever, at most every 2 s; commands fail at once while disconnected (no offline
  // queue), so a request never waits on a Redis that is gone (issue 41 item 4: 13.5 s sign-ins).
  const retryStrategy = (times: number) => Math.min(times * 100, 2_000);
  // Loaded only with REDIS_URL set: one instance on its own never needs it (about 0.2 s and 20 MiB
  // at start otherwise: bench/README.md "Embedded mode").
  const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as typeof IORedis;
  const client = new RedisClient(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 2_000,
    retryStrategy,
  });
  // The subscriber queues its SUBSCRIBE commands until connected, and resubscribes by itself.
  const subscriber = new RedisClient(url, {
    maxRetriesPerRequest: null,
    connectTimeout: 2_000,
    retryStrategy,
  });
  // Every 'error' is handled (an unhandled one crashes nothing but prints a stack each retry), and
  // logged once per outage, not at every retry.
  let down = false;
  for (const r of [client, subscriber]) {
    r.on('error', (err: Error) => {
      if (down) return;
      down = true;
      log.warn({ err: err.message }, 'redis: unreachable; serving without it until it is back');
    });
    r.on('ready', () => {
      if (!down) return;
      down = false;
      log.info('redis: connected again');
    });
  }

  const events = new EventEmitter();
  events.setMaxListeners(0);
  const handlers = new Map<string, Set<(message: string) => void>>();
  const subscriptions = new Map<string, Promise<unknown>>();
  let listening = false;
  // A loss (or a first connection that failed) since the subscriber last listened: messages may
  // have been missed, so its return is a 'resume'. The first connection at start is not one.
  let missed = false;
  subscriber.on('error', () => {
    missed = true;
  });
  subscriber.on('ready', () => {
    // ioredis sends the resubscriptions right after 'ready'; a PING answered after them says they
    // are in place (Redis answers in order).
    setImmediate(() => {
      subscriber.ping().then(
        () => {
          if (subscriber.status !== 'ready') return;
          listening = true;
          if (missed) events.emit('resume');
          missed = false;
        },
        () => {},
      );
    });
  });
  subscriber.on('close', () => {
    if (listening) events.emit('loss');
    listening = false;
    missed = true;
  });
  subscriber.on('message', (channel: string, message: string) => {
    for (const h of handlers.get(channel.slice(channelPrefix.length)) ?? []) {
      try {
        h(message);
      } catch (err) {
        log.warn({ err, channel }, 'redis: a message handler failed');
      }
    }
  });

  return {
    keyPrefix: prefix,
    channelPrefix,
    client,
    subscriber,
    listening: () => listening,
    async subscribe(channel, handler) {
      let set = handlers.get(channel);
      if (!set) {
        set = new Set();
        handlers.set(channel, set);
      }
      set.add(handler);
      // The first handler of a channel subscribes; the others wait for that subscription too.
      let live = subscriptions.get(channel);
      if (!live) {
        live = subscriber.subscribe(channelPrefix + channel);
        subscriptions.set(channel, live);
      }
      try {
        await live;
      } catch (err) {
        set.delete(handler);
        if (subscriptions.get(channel) === live) subscriptions.delete(channel);
        throw err;
      }
      return async () => {
        const s = handlers.get(channel);
        if (!s?.delete(handler) || s.size > 0) return;
        handlers.delete(channel);
        subscriptions.delete(channel);
        await subscriber.unsubscribe(channelPrefix + channel);
      };
    },
    async publish(channel, message) {
      await client.publish(channelPrefix + channel, message);
    },
    onResume: (fn) => void events.on('resume', fn),
    onLoss: (fn) => void events.on('loss', fn),
    async close() {
      events.removeAllListeners();
      await Promise.all([client, subscriber].map((r) => r.quit().catch(() => r.disconnect())));
    },
  };
}
