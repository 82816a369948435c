import { eq } from 'drizzle-orm';
import { PRODUCT_NAME } from '@rally/shared';
import type { Db } from '../../db/client.ts';
import { clients, memberships, sessions, users } from '../../db/schema/index.ts';
import { noticeMail } from '../mail/compose.ts';
import type { Outbox } from '../mail/outbox.ts';

/**
 * What a change of a client's single sign-on (OpenID Connect or SAML) does beyond its settings: the
 * members are told when it is turned on or its provider changes (issue 37.1), and the sessions it
 * started end when its provider changes or it is turned off.
 */

export type Change = 'turned_on' | 'issuer_changed' | null;

/** What members are told when single sign-on starts vouching for them, or another provider does. */
export function memberNotice(
  to: string,
  change: Exclude<Change, null>,
  c: { client: string; actor: string; issuer: string; domains: string[]; link: string },
) {
  const where = c.domains.length
    ? `addresses at ${c.domains.join(', ')}`
    : 'addresses on the domains the client verifies';
  const subject =
    change === 'turned_on'
      ? `Single sign-on was turned on for ${c.client}`
      : `The single sign-on provider of ${c.client} changed`;
  const first =
    change === 'turned_on'
      ? `${c.actor} turned on single sign-on for ${c.client} on ${PRODUCT_NAME}.`
      : `${c.actor} changed the single sign-on provider of ${c.client} on ${PRODUCT_NAME}.`;
  return noticeMail(
    to,
    subject,
    [
      first,
      `From now on ${c.issuer} can sign members with ${where} in to ${c.client}, without their ${PRODUCT_NAME} password. A session started that way can use ${c.client} only.`,
      `If you did not expect this, tell an owner of ${c.client}. The client's domains and single sign-on settings are here:`,
    ],
    c.link,
  );
}

export async function endSsoSessions(db: Pick<Db, 'delete'>, clientId: string): Promise<string[]> {
  const ended = await db
    .delete(sessions)
    .where(eq(sessions.scopeClientId, clientId))
    .returning({ userId: sessions.userId });
  return [...new Set(ended.map((r) => r.userId))];
}

/**
 * Stores, in the caller's transaction, the notice of `change` for every member of the client; the
 * caller dispatches the returned outbox ids once the transaction has committed.
 */
export async function storeSsoNotices(
  tx: Db,
  outbox: Pick<Outbox, 'store'>,
  c: {
    clientId: string;
    change: Exclude<Change, null>;
    actor: { firstName: string; lastName: string; email: string };
    issuer: string;
    domains: string[];
    publicUrl: string;
  },
): Promise<string[]> {
  const [client] = await tx.select({ name: clients.name }).from(clients).where(eq(clients.id, c.clientId));
  const members = await tx
    .select({ email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.clientId, c.clientId));
  const facts = {
    client: client?.name ?? 'your client',
    actor: `${c.actor.firstName} ${c.actor.lastName}`.trim() || c.actor.email,
    issuer: c.issuer,
    domains: c.domains,
    link: `${c.publicUrl}/settings/domain?client_id=${c.clientId}`,
  };
  const ids: string[] = [];
  for (const m of members) {
    ids.push(await outbox.store({ ...memberNotice(m.email, c.change, facts), clientId: c.clientId }, tx));
  }
  return ids;
}
