import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { ssoIdentities } from '../../db/schema/index.ts';

/**
 * Links a member to the account of the client's identity provider that signed them in (its issuer
 * and stable `sub`) at their first SSO sign-in, and checks later ones against that link: an
 * identity provider that hands the address to another account (a re-used mailbox, a renamed user)
 * is refused. A subject already linked to another member of the client is refused too.
 */
export async function matchSsoIdentity(
  db: Db,
  link: { clientId: string; userId: string; issuer: string; subject: string },
): Promise<boolean> {
  await db.insert(ssoIdentities).values(link).onConflictDoNothing();
  const [row] = await db
    .select()
    .from(ssoIdentities)
    .where(and(eq(ssoIdentities.clientId, link.clientId), eq(ssoIdentities.userId, link.userId)));
  return row !== undefined && row.issuer === link.issuer && row.subject === link.subject;
}

/** Forgets the client's links (its issuer changed: members link again at their next sign-in). */
export async function forgetSsoIdentities(db: Pick<Db, 'delete'>, clientId: string): Promise<void> {
  await db.delete(ssoIdentities).where(eq(ssoIdentities.clientId, clientId));
}
