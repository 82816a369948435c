import { and, count, eq, ne } from 'drizzle-orm';
import { BUILT_IN_ROLES } from '@rally/shared';
import type { Db } from '../../db/client.ts';
import { memberships, sessions } from '../../db/schema/index.ts';
import { badRequest } from './errors.ts';

/**
 * What provisioning does to a member's access in one client, and only that client: the membership
 * row and the sessions started by that client's single sign-on. The user's memberships and
 * sessions elsewhere are never touched (docs/decisions/0029).
 */
export type DbOrTx = Pick<Db, 'select' | 'insert' | 'update' | 'delete' | 'execute'>;

const OWNER = 'purple_owner';

export async function membershipOf(db: DbOrTx, clientId: string, userId: string) {
  const [m] = await db
    .select()
    .from(memberships)
    .where(and(eq(memberships.clientId, clientId), eq(memberships.userId, userId)));
  return m ?? null;
}

/** Gives the user a membership in the client with `role`, unless they have one. */
export async function grantMembership(db: DbOrTx, clientId: string, userId: string, role: string) {
  const [hasDefault] = await db
    .select({ id: memberships.id })
    .from(memberships)
    .where(and(eq(memberships.userId, userId), eq(memberships.isDefault, true)));
  await db
    .insert(memberships)
    .values({
      userId,
      clientId,
      role,
      permissions: [...(BUILT_IN_ROLES[role as keyof typeof BUILT_IN_ROLES] ?? [])],
      isDefault: !hasDefault,
    })
    .onConflictDoNothing();
}

/** Changes the role of the user's membership in the client (if any). Owners are not changed here. */
export async function setMembershipRole(db: DbOrTx, clientId: string, userId: string, role: string) {
  await db
    .update(memberships)
    .set({
      role,
      permissions: [...(BUILT_IN_ROLES[role as keyof typeof BUILT_IN_ROLES] ?? [])],
      updatedAt: new Date(),
    })
    .where(and(eq(memberships.clientId, clientId), eq(memberships.userId, userId)));
}

/**
 * Takes the user's access to the client away at once (RFC 7644 has no word for it; RFC 7643 §4.1.1
 * `active`): the membership goes, so every session of theirs is refused in this client at its next
 * request (the caller forgets the cached identity), and the sessions this client's single sign-on
 * started are ended outright, as when a domain stops being verified (domains/repository.ts).
 * The client's last owner is refused: nobody could manage it afterwards.
 */
export async function revokeMembership(db: DbOrTx, clientId: string, userId: string): Promise<void> {
  const m = await membershipOf(db, clientId, userId);
  if (m?.role === OWNER) {
    const [others] = await db
      .select({ n: count() })
      .from(memberships)
      .where(
        and(eq(memberships.clientId, clientId), eq(memberships.role, OWNER), ne(memberships.userId, userId)),
      );
    if (!others?.n) {
      throw badRequest(
        'mutability',
        "this is the client's only owner: make another member owner in Rally before deactivating or deleting them",
      );
    }
  }
  if (m) {
    await db.delete(memberships).where(eq(memberships.id, m.id));
    if (m.isDefault) {
      // Another membership of theirs becomes the default, so sign-in still lands somewhere.
      const [next] = await db
        .select({ id: memberships.id })
        .from(memberships)
        .where(eq(memberships.userId, userId))
        .limit(1);
      if (next) await db.update(memberships).set({ isDefault: true }).where(eq(memberships.id, next.id));
    }
  }
  await db.delete(sessions).where(and(eq(sessions.userId, userId), eq(sessions.scopeClientId, clientId)));
}
