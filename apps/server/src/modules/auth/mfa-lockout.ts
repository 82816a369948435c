import { and, eq, gt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { authFailures } from '../../db/schema/index.ts';

export type LockoutScope = 'mfa-account' | 'mfa-ip';
export type LockoutRule = { maxFailures: number; windowSeconds: number; lockSeconds: number };
export type FailureOutcome = {
  /** Seconds until the key may try again; 0 while it is not locked. */
  lockedForSeconds: number;
  /** True for the one failure that locked the key (an e-mail goes out once per lock-out). */
  justLocked: boolean;
};

/**
 * Wrong-code counters in the database (table auth_failures): they outlive a sign-in, a restart and a
 * process, unlike the per-challenge limit. A key's window starts at its first failure; reaching
 * `maxFailures` inside it locks the key for `lockSeconds`; after the lock-out or the window, counting
 * starts again. The database's clock decides, so several instances agree.
 */
export function createMfaLockout(db: Db) {
  return {
    /** Seconds left of a lock-out on this key, or 0. */
    async lockedFor(scope: LockoutScope, key: string): Promise<number> {
      const [row] = await db
        .select({
          seconds: sql<number>`ceil(extract(epoch from (${authFailures.lockedUntil} - now())))::int`,
        })
        .from(authFailures)
        .where(
          and(
            eq(authFailures.scope, scope),
            eq(authFailures.key, key),
            gt(authFailures.lockedUntil, sql`now()`),
          ),
        );
      return row ? Math.max(1, Number(row.seconds)) : 0;
    },

    /** Counts one wrong code in one atomic statement (concurrent guesses cannot slip past the limit). */
    async fail(scope: LockoutScope, key: string, rule: LockoutRule): Promise<FailureOutcome> {
      const t = authFailures;
      // A key starts afresh once its window has passed or its lock-out has ended.
      const fresh = sql`(${t.windowStartedAt} <= now() - make_interval(secs => ${rule.windowSeconds}) or ${t.lockedUntil} <= now())`;
      const count = sql`case when ${fresh} then 1 else ${t.failures} + 1 end`;
      const [row] = await db
        .insert(t)
        .values({
          scope,
          key,
          failures: 1,
          lockedUntil: rule.maxFailures <= 1 ? sql`now() + make_interval(secs => ${rule.lockSeconds})` : null,
        })
        .onConflictDoUpdate({
          target: [t.scope, t.key],
          set: {
            failures: count,
            windowStartedAt: sql`case when ${fresh} then now() else ${t.windowStartedAt} end`,
            lockedUntil: sql`case when ${count} >= ${rule.maxFailures} then now() + make_interval(secs => ${rule.lockSeconds}) else null end`,
          },
        })
        .returning({
          failures: t.failures,
          seconds: sql<number | null>`ceil(extract(epoch from (${t.lockedUntil} - now())))::int`,
        });
      if (!row) throw new Error('auth_failures upsert returned no row');
      const lockedForSeconds = row.seconds === null ? 0 : Math.max(1, Number(row.seconds));
      return { lockedForSeconds, justLocked: row.failures === rule.maxFailures };
    },

    async clear(scope: LockoutScope, key: string): Promise<void> {
      await db.delete(authFailures).where(and(eq(authFailures.scope, scope), eq(authFailures.key, key)));
    },
  };
}

export type MfaLockout = ReturnType<typeof createMfaLockout>;
