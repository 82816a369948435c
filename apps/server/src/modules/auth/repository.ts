import { and, asc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Self } from '@rally/shared/schemas/auth';
import type { Db } from '../../db/client.ts';
import { authTokens, clients, memberships, users } from '../../db/schema/index.ts';
import { hashToken, randomToken } from '../../lib/crypto.ts';

export type UserRow = typeof users.$inferSelect;
export type AuthTokenKind = (typeof authTokens.$inferSelect)['kind'];

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | null> {
  const [u] = await db
    .select()
    .from(users)
    .where(eq(sql`lower(${users.email})`, email.trim().toLowerCase()));
  return u ?? null;
}

export async function findUser(db: Db, id: string): Promise<UserRow | null> {
  const [u] = await db.select().from(users).where(eq(users.id, id));
  return u ?? null;
}

/** The self reply: the user and each client membership (SPEC.md §3 "Client membership"). */
export async function selfOf(db: Db, userId: string): Promise<Self | null> {
  const user = await findUser(db, userId);
  if (!user) return null;
  const rows = await db
    .select({
      client_id: memberships.clientId,
      client_name: clients.name,
      is_default: memberships.isDefault,
      role: memberships.role,
      permissions: memberships.permissions,
    })
    .from(memberships)
    .innerJoin(clients, eq(clients.id, memberships.clientId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(clients.name));
  return {
    id: user.id,
    email: user.email,
    first_name: user.firstName,
    last_name: user.lastName,
    mfa_enabled: user.mfaSecretEnc !== null,
    has_password: user.passwordHash !== null,
    clients: rows,
  };
}

/** Issues a single-use token of a kind; returns the token (mailed or set in a cookie), stores its hash. */
export async function issueToken(
  db: Db,
  kind: AuthTokenKind,
  userId: string,
  ttlMs: number,
): Promise<string> {
  const token = randomToken();
  await db
    .insert(authTokens)
    .values({ kind, userId, tokenHash: hashToken(token), expiresAt: new Date(Date.now() + ttlMs) });
  return token;
}

/** A token of this kind that is neither used nor expired. */
function usable(kind: AuthTokenKind, token: string) {
  return and(
    eq(authTokens.tokenHash, hashToken(token)),
    eq(authTokens.kind, kind),
    isNull(authTokens.usedAt),
    gt(authTokens.expiresAt, new Date()),
  );
}

/** Uses a token once: marks it used atomically, so two concurrent uses cannot both succeed. */
export async function consumeToken(
  db: Db,
  kind: AuthTokenKind,
  token: string,
): Promise<{ id: string; userId: string } | null> {
  const [row] = await db
    .update(authTokens)
    .set({ usedAt: new Date() })
    .where(usable(kind, token))
    .returning({ id: authTokens.id, userId: authTokens.userId });
  return row ?? null;
}

/** Looks a token up without using it (an MFA challenge survives wrong codes). */
export async function peekToken(
  db: Db,
  kind: AuthTokenKind,
  token: string,
): Promise<{ id: string; userId: string } | null> {
  const [row] = await db
    .select({ id: authTokens.id, userId: authTokens.userId })
    .from(authTokens)
    .where(usable(kind, token));
  return row ?? null;
}
