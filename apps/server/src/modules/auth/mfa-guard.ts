import type { FastifyInstance, FastifyReply } from 'fastify';
import { emails } from './emails.ts';
import { createMfaLockout } from './mfa-lockout.ts';

export type MfaAttempt =
  { allowed: false; lockedFor: number } | { allowed: true; ip: number; account: number };

/**
 * The second-factor limits of the code step and of turning MFA off: MFA_MAX_FAILURES per account and
 * three times as many per IP, in the database (mfa-lockout.ts), so every instance shares them.
 */
export function createMfaGuard(app: FastifyInstance) {
  const { config } = app;
  const lockout = createMfaLockout(app.db);
  const rules = {
    account: {
      maxFailures: config.mfaMaxFailures,
      windowSeconds: config.mfaLockSeconds,
      lockSeconds: config.mfaLockSeconds,
    },
    ip: {
      maxFailures: config.mfaMaxFailures * 3,
      windowSeconds: config.mfaLockSeconds,
      lockSeconds: config.mfaLockSeconds,
    },
  };
  return {
    /**
     * Counts this attempt, for the account and then the IP, before any code is looked at (issue 37
     * item 3). An attempt refused for one does not count for the other: a burst against one account
     * stops at its limit without locking the address, and an address's refusals leave the accounts
     * alone. The seconds to wait, or the attempt's numbers.
     */
    async attempt(userId: string, ip: string): Promise<MfaAttempt> {
      const byAccount = await lockout.attempt('mfa-account', userId, rules.account);
      if (!byAccount.allowed) return { allowed: false, lockedFor: byAccount.lockedForSeconds };
      const byIp = await lockout.attempt('mfa-ip', ip, rules.ip);
      if (!byIp.allowed) {
        await lockout.refund('mfa-account', userId);
        return { allowed: false, lockedFor: byIp.lockedForSeconds };
      }
      return { allowed: true, ip: byIp.attempt, account: byAccount.attempt };
    },

    /** A wrong code: the seconds of a lock-out it caused (0 if none). Mails the user once per lock. */
    async failed(
      user: { id: string; email: string },
      ip: string,
      attempt: { ip: number; account: number },
    ): Promise<number> {
      const byAccount = await lockout.failed('mfa-account', user.id, rules.account, attempt.account);
      const byIp = await lockout.failed('mfa-ip', ip, rules.ip, attempt.ip);
      if (byAccount.justLocked)
        await app.outbox.enqueue(
          emails.mfaLocked(
            user.email,
            rules.account.maxFailures,
            Math.ceil(rules.account.lockSeconds / 60),
            `${config.publicUrl}/reset-password`,
          ),
        );
      return Math.max(byAccount.lockedForSeconds, byIp.lockedForSeconds);
    },

    /** A right code: the account's count starts again and the IP gets its attempt back. */
    async passed(userId: string, ip: string): Promise<void> {
      await lockout.clear('mfa-account', userId);
      await lockout.refund('mfa-ip', ip);
    },

    lockedReply(reply: FastifyReply, seconds: number) {
      const minutes = Math.ceil(seconds / 60);
      return reply
        .code(429)
        .header('retry-after', String(seconds))
        .send({
          message: `Too many wrong codes. Two-step verification is locked for ${minutes} minute${minutes === 1 ? '' : 's'}; try again after that.`,
        });
    },
  };
}
