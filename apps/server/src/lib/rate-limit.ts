import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';

export type LimitResult = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export type Limiter = {
  /** Counts one attempt for `key`; refused once `points` attempts fall in the window. */
  hit(key: string): Promise<LimitResult>;
  reset(key: string): Promise<void>;
  /** Whether `key` has used up its attempts in the current window, without counting one. */
  check(key: string): Promise<LimitResult>;
};

export type LimiterStore = { redis: Redis | undefined };

/**
 * Fixed-window attempt counters, shared through Redis when REDIS_URL is set (several instances) and
 * in process memory otherwise.
 */
export function createLimiter(
  store: LimiterStore,
  name: string,
  points: number,
  windowSeconds: number,
): Limiter {
  const opts = { keyPrefix: `rally:${name}`, points, duration: windowSeconds };
  const limiter: RateLimiterAbstract = store.redis
    ? new RateLimiterRedis({ ...opts, storeClient: store.redis, useRedisPackage: false })
    : new RateLimiterMemory(opts);
  return {
    async hit(key) {
      try {
        await limiter.consume(key);
        return { allowed: true };
      } catch (res) {
        if (res instanceof RateLimiterRes)
          return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)) };
        throw res;
      }
    },
    async reset(key) {
      await limiter.delete(key);
    },
    async check(key) {
      const res = await limiter.get(key);
      if (!res || res.consumedPoints < points) return { allowed: true };
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)) };
    },
  };
}

export function connectRedis(url: string | undefined): Redis | undefined {
  if (!url) return undefined;
  // Fail fast instead of queueing commands forever when Redis is down.
  return new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
}
