import { and, eq } from 'drizzle-orm';
import type { OAuthError, OAuthProvider } from '@rally/shared/schemas/sso';
import type { Db } from '../../db/client.ts';
import { oauthIdentities } from '../../db/schema/index.ts';
import { findUser, findUserByEmail } from '../auth/index.ts';

/**
 * Who a Google or Microsoft sign-in is (issue 37.2, docs/decisions/0015). The e-mail claim alone
 * proves nothing at Microsoft: with the `common` issuer any Entra tenant signs its users in and may
 * give them any address, unverified (the "nOAuth" pattern). So a returning user is matched by the
 * provider's stable subject, and a subject is linked to an account by e-mail only when the provider
 * says it verified that address; otherwise the user links it while signed in.
 */

/** The provider's stable, never reassigned id of the account; null when the token has none. */
export function subjectOf(provider: OAuthProvider, claims: Record<string, unknown>): string | null {
  const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);
  // Microsoft: the object id within its tenant is the documented key for a user across apps;
  // the pairwise `sub` is stable for this app too. Prefixed so one form can never pass as the other.
  if (provider === 'microsoft') {
    const tid = str(claims.tid);
    const oid = str(claims.oid);
    if (tid && oid) return `oid:${tid.toLowerCase()}:${oid.toLowerCase()}`;
  }
  const sub = str(claims.sub);
  return sub ? `sub:${sub}` : null;
}

const isTrue = (v: unknown) => v === true || v === 'true' || v === 1;

/**
 * Whether the provider vouches that the account owns this address. Google sends `email_verified`.
 * Microsoft sends no such claim for work accounts; its optional `xms_edov` is true when the address's
 * domain is verified in the user's tenant, and `verified_primary_email` lists addresses it verified.
 */
export function providerVerifiedEmail(
  provider: OAuthProvider,
  claims: Record<string, unknown>,
  email: string,
): boolean {
  if (provider === 'google') return isTrue(claims.email_verified);
  if (isTrue(claims.xms_edov)) return true;
  const listed = [claims.verified_primary_email, claims.verified_secondary_email].flat();
  return listed.some((v) => typeof v === 'string' && v.trim().toLowerCase() === email.toLowerCase());
}

export type OAuthMatch = { userId: string } | { error: OAuthError };

/**
 * The account a provider sign-in opens: the one its subject is linked to, else (address verified by
 * the provider) the account with that address, linked from now on. An address the provider did not
 * verify is refused alike whether or not an account has it (no way to tell accounts apart).
 */
export async function matchOAuthSignIn(
  db: Db,
  provider: OAuthProvider,
  subject: string,
  email: string,
  claims: Record<string, unknown>,
): Promise<OAuthMatch> {
  const linked = await linkedUser(db, provider, subject);
  if (linked) return { userId: linked };
  if (!email) return { error: 'no_email' };
  if (!providerVerifiedEmail(provider, claims, email)) return { error: 'email_unverified' };
  const user = await findUserByEmail(db, email);
  if (!user) return { error: 'no_account' };
  // The user signs in with another account of this provider than the one they linked: the stable
  // subject wins (a recycled or re-assigned address must not open the account). They can sign in
  // another way and link the new one.
  const [other] = await db
    .select({ subject: oauthIdentities.subject })
    .from(oauthIdentities)
    .where(and(eq(oauthIdentities.userId, user.id), eq(oauthIdentities.provider, provider)));
  if (other) return { error: 'identity_mismatch' };
  const inserted = await db
    .insert(oauthIdentities)
    .values({ provider, subject, userId: user.id, email })
    .onConflictDoNothing()
    .returning({ userId: oauthIdentities.userId });
  if (inserted.length > 0) return { userId: user.id };
  // Two first sign-ins at once: whichever linked first decides.
  const now = await linkedUser(db, provider, subject);
  return now === user.id ? { userId: user.id } : { error: 'identity_mismatch' };
}

/**
 * A signed-in user links a provider account to themselves (we know who they are; the address does
 * not matter). Replaces their earlier link to this provider; refused when the account is linked to
 * someone else.
 */
export async function linkOAuthIdentity(
  db: Db,
  link: { provider: OAuthProvider; subject: string; userId: string; email: string },
): Promise<'linked' | 'identity_taken' | 'no_account'> {
  if (!(await findUser(db, link.userId))) return 'no_account';
  return db.transaction(async (tx) => {
    const [owner] = await tx
      .select({ userId: oauthIdentities.userId })
      .from(oauthIdentities)
      .where(and(eq(oauthIdentities.provider, link.provider), eq(oauthIdentities.subject, link.subject)))
      .for('update');
    if (owner && owner.userId !== link.userId) return 'identity_taken';
    await tx
      .delete(oauthIdentities)
      .where(and(eq(oauthIdentities.userId, link.userId), eq(oauthIdentities.provider, link.provider)));
    await tx.insert(oauthIdentities).values(link).onConflictDoNothing();
    const [now] = await tx
      .select({ userId: oauthIdentities.userId })
      .from(oauthIdentities)
      .where(and(eq(oauthIdentities.provider, link.provider), eq(oauthIdentities.subject, link.subject)));
    return now?.userId === link.userId ? 'linked' : 'identity_taken';
  });
}

export async function listOAuthIdentities(db: Db, userId: string) {
  return db
    .select({
      provider: oauthIdentities.provider,
      email: oauthIdentities.email,
      createdAt: oauthIdentities.createdAt,
    })
    .from(oauthIdentities)
    .where(eq(oauthIdentities.userId, userId));
}

export async function unlinkOAuthIdentity(db: Db, userId: string, provider: OAuthProvider): Promise<boolean> {
  const gone = await db
    .delete(oauthIdentities)
    .where(and(eq(oauthIdentities.userId, userId), eq(oauthIdentities.provider, provider)))
    .returning({ subject: oauthIdentities.subject });
  return gone.length > 0;
}

async function linkedUser(db: Db, provider: OAuthProvider, subject: string): Promise<string | null> {
  const [row] = await db
    .select({ userId: oauthIdentities.userId })
    .from(oauthIdentities)
    .where(and(eq(oauthIdentities.provider, provider), eq(oauthIdentities.subject, subject)));
  return row?.userId ?? null;
}
