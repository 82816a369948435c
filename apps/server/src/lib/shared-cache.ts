import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { RedisLink } from './redis.ts';

/**
 * An in-process cache whose entries every instance forgets together (issue 41 items 2 and 5): a
 * write forgets the entry here and publishes "forget" over Redis (REDIS_URL) to every other
 * instance, which drops it in a millisecond or two instead of serving it until its TTL ends.
 *
 * When nobody could be told (PostgreSQL without Redis: other instances may exist), entries live for
 * `unsharedTtlMs` only, 0 meaning no cache; so they do while Redis is unreachable, and everything
 * cached is dropped when the subscription is lost and again when it is back (messages sent in
 * between were missed). The embedded database belongs to one process: there the TTL is the bound.
 */
export type SharedCache<V> = {
  get(key: string): V | undefined;
  /**
   * The cached value, or `load`'s, stored unless the key was forgotten while it loaded (the value
   * read may predate that write). `tag` groups entries for `forgetTag` (e.g. a user's sessions).
   */
  load(key: string, load: () => Promise<V>, tag?: string): Promise<V>;
  /** A store that holds only if nothing is forgotten between `ticket()` and `set` (see `load`). */
  ticket(): { set(key: string, value: V, tag?: string): void };
  /** Forgets `key` here and on every instance; resolves once the message is out (never rejects). */
  forget(key: string): Promise<void>;
  /** Forgets every entry tagged `tag`, here and on every instance. */
  forgetTag(tag: string): Promise<void>;
  /** Forgets everything, here and on every instance (rare changes that touch unknown keys). */
  forgetAll(): Promise<void>;
  /** Whether entries are being kept (diagnostics, tests). */
  mode(): 'local' | 'shared' | 'unshared';
};

/** The shared caches' names (their channels are `cache:<name>`), for modules that forget by name. */
export const CACHES = {
  sessions: 'sessions',
  self: 'self',
  brand: 'brand',
  landingPage: 'landing-page',
  landingDomain: 'landing-domain',
  webhookEvents: 'webhook-events',
} as const;

/**
 * The caches made for one app (keyed by its database handle, which every plugin context shares),
 * by name: a module that must not import the cache's owner (an import cycle) forgets through here.
 */
const registry = new WeakMap<object, Map<string, SharedCache<object>>>();

/**
 * Forgets a key (or tag) of the named cache on every instance: through the cache when this app has
 * made it, else by message alone (other instances may have it).
 */
export async function forgetShared(
  deps: SharedCacheDeps,
  scope: object,
  name: string,
  what: { key?: string; tag?: string; all?: true },
): Promise<void> {
  const cache = registry.get(scope)?.get(name);
  if (cache) {
    if (what.key !== undefined) await cache.forget(what.key);
    if (what.tag !== undefined) await cache.forgetTag(what.tag);
    if (what.all) await cache.forgetAll();
    return;
  }
  if (!deps.redis) return;
  await deps.redis
    .publish(`cache:${name}`, JSON.stringify({ k: what.key, t: what.tag, a: what.all }))
    .catch((err: unknown) =>
      deps.log.warn({ err: (err as Error).message }, 'cache: could not publish a forget'),
    );
}

export type SharedCacheDeps = {
  redis: RedisLink | undefined;
  /** Whether other instances may use the same data (PostgreSQL); false for the embedded database. */
  multiInstance: boolean;
  log: FastifyBaseLogger;
};

/** An app's shared-cache dependencies: its Redis, whether it is on PostgreSQL, its log. */
export function cacheDepsOf(app: {
  redis: RedisLink | undefined;
  config: { databaseUrl: string | undefined };
  log: FastifyBaseLogger;
}): SharedCacheDeps {
  return { redis: app.redis, multiInstance: Boolean(app.config.databaseUrl), log: app.log };
}

type Entry<V> = { value: V; tag: string | undefined };
type Message = { k?: string; t?: string; a?: boolean };

export function createSharedCache<V extends object>(
  deps: SharedCacheDeps,
  opts: {
    name: string;
    max: number;
    ttlMs: number;
    unsharedTtlMs?: number;
    /** Registers the cache for `forgetShared(…, scope, name, …)`. */
    scope?: object;
  },
): SharedCache<V> {
  const { redis, log } = deps;
  const cache = new LRUCache<string, Entry<V>>({ max: opts.max, ttl: opts.ttlMs });
  const channel = `cache:${opts.name}`;
  const unsharedTtl = opts.unsharedTtlMs ?? 0;
  // Bumped by every forget: a load that started before one stores nothing.
  let generation = 0;

  const mode = (): 'local' | 'shared' | 'unshared' => {
    if (redis) return redis.listening() ? 'shared' : 'unshared';
    return deps.multiInstance ? 'unshared' : 'local';
  };
  const ttlNow = () => (mode() === 'unshared' ? unsharedTtl : opts.ttlMs);
  const dropKey = (key: string) => {
    generation++;
    cache.delete(key);
  };
  const dropTag = (tag: string) => {
    generation++;
    for (const [key, entry] of cache.entries()) if (entry.tag === tag) cache.delete(key);
  };
  const dropAll = () => {
    generation++;
    cache.clear();
  };

  if (redis) {
    redis
      .subscribe(channel, (raw) => {
        const m = JSON.parse(raw) as Message;
        if (typeof m.k === 'string') dropKey(m.k);
        if (typeof m.t === 'string') dropTag(m.t);
        if (m.a === true) dropAll();
      })
      .catch((err: unknown) => log.warn({ err, channel }, 'cache: could not subscribe'));
    redis.onLoss(dropAll);
    redis.onResume(dropAll);
  }

  const tell = async (m: Message) => {
    if (!redis) return;
    try {
      await redis.publish(channel, JSON.stringify(m));
    } catch (err) {
      // Redis is down: the other instances' subscriptions are too, and they keep no entries.
      log.warn({ err: (err as Error).message, channel }, 'cache: could not publish a forget');
    }
  };

  const ticket = () => {
    const at = generation;
    return {
      set(key: string, value: V, tag?: string) {
        const ttl = ttlNow();
        if (ttl > 0 && at === generation) cache.set(key, { value, tag }, { ttl });
      },
    };
  };

  const shared: SharedCache<V> = {
    get(key) {
      if (ttlNow() === 0) return undefined;
      return cache.get(key)?.value;
    },
    async load(key, load, tag) {
      const hit = shared.get(key);
      if (hit !== undefined) return hit;
      const t = ticket();
      const value = await load();
      t.set(key, value, tag);
      return value;
    },
    ticket,
    async forget(key) {
      dropKey(key);
      await tell({ k: key });
    },
    async forgetTag(tag) {
      dropTag(tag);
      await tell({ t: tag });
    },
    async forgetAll() {
      dropAll();
      await tell({ a: true });
    },
    mode,
  };
  if (opts.scope) {
    let named = registry.get(opts.scope);
    if (!named) {
      named = new Map();
      registry.set(opts.scope, named);
    }
    named.set(opts.name, shared as unknown as SharedCache<object>);
  }
  return shared;
}
