import type { FastifyReply } from 'fastify';
import type { Db } from '../../db/client.ts';
import { issueToken } from './repository.ts';

/**
 * The pending second step of a sign-in: a single-use challenge token in an HttpOnly cookie, read by
 * POST /v1/api/auth/mfa. Every way in that is not vouched for by a trusted identity provider (password,
 * magic link, Google and Microsoft sign-in) ends here for a user with TOTP on, never in a session
 * (docs/decisions/0007-second-factor-for-every-sign-in.md).
 */
export const MFA_COOKIE = 'rally_mfa';
export const MFA_TTL = 5 * 60_000;

export function mfaCookieOptions(secure: boolean) {
  return { path: '/v1/api/auth', httpOnly: true, sameSite: 'lax' as const, secure };
}

/** Issues the challenge and sets its cookie; the caller answers "code needed" instead of a session. */
export async function startMfaChallenge(
  db: Db,
  reply: FastifyReply,
  userId: string,
  secure: boolean,
): Promise<void> {
  const token = await issueToken(db, 'mfa_challenge', userId, MFA_TTL);
  reply.setCookie(MFA_COOKIE, token, { ...mfaCookieOptions(secure), maxAge: MFA_TTL / 1000 });
}
