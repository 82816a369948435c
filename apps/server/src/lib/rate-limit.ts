import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RedisLink } from './redis.ts';

export type LimitResult = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export type Limiter = {
  /** Counts one attempt for `key`; refused once `points` attempts fall in the window. */
  hit(key: string): Promise<LimitResult>;
  reset(key: string): Promise<void>;
  /** Whether `key` has used up its attempts in the current window, without counting one. */
  check(key: string): Promise<LimitResult>;
};

export type LimiterStore = { redis: RedisLink | undefined };

/**
 * Fixed-window attempt counters, shared through Redis when REDIS_URL is set (several instances) and
 * in process memory otherwise. While Redis cannot be reached each instance counts in its own memory
 * (rate-limiter-flexible's insurance limiter): sign-in keeps working, with per-instance limits,
 * instead of answering 500 (issue 41 item 4).
 */
export function createLimiter(
  store: LimiterStore,
  name: string,
  points: number,
  windowSeconds: number,
): Limiter {
  const opts = { keyPrefix: `${store.redis?.keyPrefix ?? 'rally:'}${name}`, points, duration: windowSeconds };
  const limiter: RateLimiterAbstract = store.redis
    ? new RateLimiterRedis({
        ...opts,
        storeClient: store.redis.client,
        useRedisPackage: false,
        // Not connected: straight to the insurance limiter, without waiting on a command.
        rejectIfRedisNotReady: true,
        insuranceLimiter: new RateLimiterMemory(opts),
      })
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
