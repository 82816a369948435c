import { and, eq, gt, isNull, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { authFailures } from '../../db/schema/index.ts';

export type LockoutScope = 'mfa-account' | 'mfa-ip';
export type LockoutRule = { maxFailures: number; windowSeconds: number; lockSeconds: number };
export type AttemptOutcome =
  | { allowed: true; /** This attempt's number in the key's window (1 = first). */ attempt: number }
  | { allowed: false; /** Seconds until the key may try again. */ lockedForSeconds: number };
export type FailureOutcome = {
  /** Seconds until the key may try again; 0 while it is not locked. */
  lockedForSeconds: number;
  /** True for the one failure that locked the key (an e-mail goes out once per lock-out). */
  justLocked: boolean;
};

const secondsUntil = (t: typeof authFailures.lockedUntil) =>
  sql<number | null>`ceil(extract(epoch from (${t} - now())))::int`;

/**
 * Second-factor attempt counters in the database (table auth_failures): they outlive a sign-in, a
 * restart and a process, and every instance shares them. An attempt is counted before its code is
 * looked at, in one statement (issue 37 item 3: checking the lock, then verifying, then counting let
 * a burst of concurrent guesses all pass the check). A key's window starts at its first attempt; at
 * most `maxFailures` attempts are looked at in it; the one that fails as the `maxFailures`-th locks
 * the key for `lockSeconds`, and so does any attempt past it. A right code gives its attempt back
 * (account: the count is cleared). The database's clock decides, so several instances agree.
 */
export function createMfaLockout(db: Db) {
  const t = authFailures;
  return {
    /** Counts one attempt for `key`; allowed only while the key is not locked and within its limit. */
    async attempt(scope: LockoutScope, key: string, rule: LockoutRule): Promise<AttemptOutcome> {
      // A key starts afresh once its window has passed or its lock-out has ended.
      const fresh = sql`(${t.windowStartedAt} <= now() - make_interval(secs => ${rule.windowSeconds}) or ${t.lockedUntil} <= now())`;
      const locked = sql`(${t.lockedUntil} > now())`;
      const count = sql`case when ${fresh} then 1 when ${locked} then ${t.failures} else ${t.failures} + 1 end`;
      const [row] = await db
        .insert(t)
        .values({
          scope,
          key,
          failures: 1,
          lockedUntil: rule.maxFailures < 1 ? sql`now() + make_interval(secs => ${rule.lockSeconds})` : null,
        })
        .onConflictDoUpdate({
          target: [t.scope, t.key],
          set: {
            failures: count,
            windowStartedAt: sql`case when ${fresh} then now() else ${t.windowStartedAt} end`,
            lockedUntil: sql`case when ${fresh} then null when ${locked} then ${t.lockedUntil}
              when ${count} > ${rule.maxFailures} then now() + make_interval(secs => ${rule.lockSeconds})
              else null end`,
          },
        })
        .returning({ failures: t.failures, seconds: secondsUntil(t.lockedUntil) });
      if (!row) throw new Error('auth_failures upsert returned no row');
      if (row.seconds !== null && Number(row.seconds) > 0)
        return { allowed: false, lockedForSeconds: Math.max(1, Number(row.seconds)) };
      return { allowed: true, attempt: row.failures };
    },

    /**
     * The attempt numbered `attempt` had a wrong code: the `maxFailures`-th (or a later one) locks the
     * key, unless it is locked already.
     */
    async failed(
      scope: LockoutScope,
      key: string,
      rule: LockoutRule,
      attempt: number,
    ): Promise<FailureOutcome> {
      if (attempt < rule.maxFailures) return { lockedForSeconds: 0, justLocked: false };
      const [row] = await db
        .update(t)
        .set({
          lockedUntil: sql`case when ${t.lockedUntil} > now() then ${t.lockedUntil}
            else now() + make_interval(secs => ${rule.lockSeconds}) end`,
        })
        .where(and(eq(t.scope, scope), eq(t.key, key)))
        .returning({ seconds: secondsUntil(t.lockedUntil) });
      const seconds = row?.seconds === null || row?.seconds === undefined ? rule.lockSeconds : row.seconds;
      return { lockedForSeconds: Math.max(1, Number(seconds)), justLocked: attempt === rule.maxFailures };
    },

    /** A right code: its attempt no longer counts (while the key is not locked). */
    async refund(scope: LockoutScope, key: string): Promise<void> {
      await db
        .update(t)
        .set({ failures: sql`greatest(${t.failures} - 1, 0)` })
        .where(
          and(
            eq(t.scope, scope),
            eq(t.key, key),
            or(isNull(t.lockedUntil), sql`${t.lockedUntil} <= now()`),
            gt(t.failures, 0),
          ),
        );
    },

    async clear(scope: LockoutScope, key: string): Promise<void> {
      await db.delete(t).where(and(eq(t.scope, scope), eq(t.key, key)));
    },
  };
}

export type MfaLockout = ReturnType<typeof createMfaLockout>;
