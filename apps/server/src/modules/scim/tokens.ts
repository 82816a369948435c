import { and, desc, eq, isNull, lt, or } from 'drizzle-orm';
import type { ScimToken } from '@rally/shared/schemas/scim';
import type { Db } from '../../db/client.ts';
import { scimTokens, users } from '../../db/schema/index.ts';
import { hashToken, randomToken } from '../../lib/crypto.ts';
import { oneRow } from '../../lib/errors.ts';

/** Tokens start with this, so a leaked one is recognisable (secret scanners, logs). */
export const SCIM_TOKEN_PREFIX = 'rally_scim_';
/** last_used_at is written at most this often, so that reads stay reads. */
const TOUCH_AFTER_MS = 60_000;

export type ScimCaller = {
  tokenId: string;
  /** The token's name (what the audit log shows as the actor). */
  tokenName: string;
  clientId: string;
  defaultRole: string;
  /** The identity provider's request: its address and user agent, for the audit log. */
  origin?: { ip: string | null; userAgent: string | null };
};

type Row = typeof scimTokens.$inferSelect & { creator: string | null };

function toReply(row: Row): ScimToken {
  return {
    id: row.id,
    name: row.name,
    hint: row.hint,
    default_role: row.defaultRole,
    created_at: row.createdAt.toISOString(),
    created_by: row.creator,
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
  };
}

const creatorName = (first: string | null, last: string | null, email: string | null) =>
  email === null ? null : `${first ?? ''} ${last ?? ''}`.trim() || email;

export async function listScimTokens(db: Db, clientId: string): Promise<ScimToken[]> {
  const rows = await db
    .select({ t: scimTokens, first: users.firstName, last: users.lastName, email: users.email })
    .from(scimTokens)
    .leftJoin(users, eq(users.id, scimTokens.createdBy))
    .where(eq(scimTokens.clientId, clientId))
    .orderBy(desc(scimTokens.createdAt));
  return rows.map((r) => toReply({ ...r.t, creator: creatorName(r.first, r.last, r.email) }));
}

/** Makes a token; the secret is returned here only (its SHA-256 is what is stored). */
export async function createScimToken(
  db: Db,
  input: { clientId: string; name: string; defaultRole: string; createdBy: { id: string; name: string } },
): Promise<{ token: ScimToken; secret: string }> {
  const secret = `${SCIM_TOKEN_PREFIX}${randomToken(32)}`;
  const row = oneRow(
    await db
      .insert(scimTokens)
      .values({
        clientId: input.clientId,
        name: input.name,
        tokenHash: hashToken(secret),
        hint: `${secret.slice(0, SCIM_TOKEN_PREFIX.length + 4)}…`,
        defaultRole: input.defaultRole,
        createdBy: input.createdBy.id,
      })
      .returning(),
  );
  return { token: toReply({ ...row, creator: input.createdBy.name }), secret };
}

/** Revokes one of the client's tokens; false when the client has no such token. */
export async function revokeScimToken(db: Db, clientId: string, id: string): Promise<boolean> {
  const [row] = await db
    .update(scimTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(scimTokens.clientId, clientId), eq(scimTokens.id, id), isNull(scimTokens.revokedAt)))
    .returning({ id: scimTokens.id });
  if (row) return true;
  // Revoking twice is not an error; another client's token (or none) is not found.
  const [exists] = await db
    .select({ id: scimTokens.id })
    .from(scimTokens)
    .where(and(eq(scimTokens.clientId, clientId), eq(scimTokens.id, id)));
  return exists !== undefined;
}

/** The client a bearer token speaks for, or null for an unknown or revoked token; notes its use. */
export async function callerOfToken(db: Db, bearer: string): Promise<ScimCaller | null> {
  if (!bearer.startsWith(SCIM_TOKEN_PREFIX) || bearer.length > 200) return null;
  const [row] = await db
    .select()
    .from(scimTokens)
    .where(and(eq(scimTokens.tokenHash, hashToken(bearer)), isNull(scimTokens.revokedAt)));
  if (!row) return null;
  const now = new Date();
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > TOUCH_AFTER_MS) {
    await db
      .update(scimTokens)
      .set({ lastUsedAt: now })
      .where(
        and(
          eq(scimTokens.id, row.id),
          or(
            isNull(scimTokens.lastUsedAt),
            lt(scimTokens.lastUsedAt, new Date(now.getTime() - TOUCH_AFTER_MS)),
          ),
        ),
      );
  }
  return { tokenId: row.id, tokenName: row.name, clientId: row.clientId, defaultRole: row.defaultRole };
}
