import { and, asc, eq, inArray, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { clientDomains, clients, memberships, sessions, users } from '../../db/schema/index.ts';
import { domainCovers } from '../../lib/dns.ts';

export type DomainRow = typeof clientDomains.$inferSelect;

/** The client's token for TXT records (a default of the column: every client has one). */
export async function domainTokenOf(db: Db, clientId: string): Promise<string | null> {
  const [row] = await db.select({ token: clients.domainToken }).from(clients).where(eq(clients.id, clientId));
  return row?.token ?? null;
}

export function listDomainRows(db: Db, clientId: string): Promise<DomainRow[]> {
  return db
    .select()
    .from(clientDomains)
    .where(eq(clientDomains.clientId, clientId))
    .orderBy(asc(clientDomains.domain));
}

export async function domainRow(db: Db, clientId: string, id: string): Promise<DomainRow | null> {
  const [row] = await db
    .select()
    .from(clientDomains)
    .where(and(eq(clientDomains.clientId, clientId), eq(clientDomains.id, id)));
  return row ?? null;
}

/** The client's verified domains, lower case. */
export async function verifiedDomainsOf(db: Db, clientId: string): Promise<string[]> {
  const rows = await db
    .select({ domain: clientDomains.domain })
    .from(clientDomains)
    .where(and(eq(clientDomains.clientId, clientId), isNotNull(clientDomains.verifiedAt)))
    .orderBy(asc(clientDomains.domain));
  return rows.map((r) => r.domain);
}

/** The domain part of an e-mail address, lower case ('' when there is none). */
export function emailDomain(email: string): string {
  const at = email.lastIndexOf('@');
  return at < 0 ? '' : email.slice(at + 1).toLowerCase();
}

/** Whether one of the client's verified domains covers the address's domain. */
export async function coversAddress(db: Db, clientId: string, email: string): Promise<boolean> {
  const host = emailDomain(email);
  if (!host) return false;
  return (await verifiedDomainsOf(db, clientId)).some((d) => domainCovers(d, host));
}

/** Domains due for their periodic check: never checked, or last checked before `before`. */
export function dueDomainRows(db: Db, before: Date, limit: number): Promise<DomainRow[]> {
  return db
    .select()
    .from(clientDomains)
    .where(or(isNull(clientDomains.lastCheckedAt), lt(clientDomains.lastCheckedAt, before)))
    .orderBy(sql`${clientDomains.lastCheckedAt} asc nulls first`)
    .limit(limit);
}

/** E-mail addresses of the client's owners (they are told when a domain stops being verified). */
export async function ownerAddresses(db: Db, clientId: string): Promise<string[]> {
  const rows = await db
    .select({ email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.clientId, clientId), eq(memberships.role, 'purple_owner')));
  return rows.map((r) => r.email);
}

export async function clientName(db: Db, clientId: string): Promise<string> {
  const [row] = await db.select({ name: clients.name }).from(clients).where(eq(clients.id, clientId));
  return row?.name ?? '';
}

/**
 * Ends the client's single sign-on sessions of members whose address no verified domain of the
 * client covers any more (a domain removed or no longer verified). Returns the users concerned.
 */
export async function endUncoveredSsoSessions(db: Db, clientId: string): Promise<string[]> {
  const rows = await db
    .select({ id: sessions.id, userId: sessions.userId, email: users.email })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.scopeClientId, clientId));
  if (!rows.length) return [];
  const verified = await verifiedDomainsOf(db, clientId);
  const ended = rows.filter((r) => !verified.some((d) => domainCovers(d, emailDomain(r.email))));
  if (!ended.length) return [];
  await db.delete(sessions).where(
    inArray(
      sessions.id,
      ended.map((r) => r.id),
    ),
  );
  return [...new Set(ended.map((r) => r.userId))];
}
