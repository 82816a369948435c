import { and, count, eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { MAX_CLIENT_DOMAINS } from '@rally/shared/schemas/domains';
import type { ClientDomain, ClientDomains } from '@rally/shared/schemas/domains';
import type { Db } from '../../db/client.ts';
import { clientDomains, clients } from '../../db/schema/index.ts';
import { bareHost, domainCovers, lookUpVerification, verificationRecord } from '../../lib/dns.ts';
import type { DomainResolver, VerificationLookup } from '../../lib/dns.ts';
import { fieldConflict, fieldError, httpError } from '../../lib/errors.ts';
import type { Outbox } from '../mail/outbox.ts';
import { noticeMail } from '../mail/compose.ts';
import {
  clientName,
  domainRow,
  domainTokenOf,
  dueDomainRows,
  endUncoveredSsoSessions,
  listDomainRows,
  ownerAddresses,
} from './repository.ts';
import type { DomainRow } from './repository.ts';

export type DomainServiceDeps = {
  db: Db;
  resolver: DomainResolver;
  /** Our own host (PUBLIC_URL's): it and its subdomains are not a client's to verify. */
  appHost: string;
  publicUrl: string;
  outbox: Outbox;
  /** Forget cached sessions of these users (their SSO sessions were ended). */
  forgetUsers: (userIds: string[]) => void;
  log: FastifyBaseLogger;
};

const isUniqueViolation = (err: unknown) => {
  const e = err as { code?: string; cause?: { code?: string } };
  return e.code === '23505' || e.cause?.code === '23505';
};

function toReply(row: DomainRow, token: string): ClientDomain {
  return {
    id: row.id,
    domain: row.domain,
    verified: row.verifiedAt !== null,
    verified_at: row.verifiedAt?.toISOString() ?? null,
    last_checked_at: row.lastCheckedAt?.toISOString() ?? null,
    last_check_message: row.lastCheckMessage,
    dns_record: verificationRecord(row.domain, token),
    created_at: row.createdAt.toISOString(),
  };
}

/** What a check found, in words for the settings screen. */
function checkMessage(domain: string, token: string, found: VerificationLookup): string {
  const { name, value } = verificationRecord(domain, token);
  switch (found.status) {
    case 'found':
      return `${name} has the record: ${domain} is verified.`;
    case 'unknown':
      return `DNS did not answer for ${name}, so nothing changed. It is tried again later.`;
    case 'missing':
      return found.values.length
        ? `${name} has TXT records, but none is ${value}. Add that one (the others can stay).`
        : `No TXT record at ${name} yet. Add it at your DNS provider; changes can take up to an hour to show.`;
  }
}

/**
 * A client's verified domains (docs/decisions/0013): add, check the TXT record now, remove, and the
 * periodic re-check that takes verification away from a domain whose record is gone.
 */
export function createDomainService(deps: DomainServiceDeps) {
  const { db, resolver } = deps;

  async function tokenOf(clientId: string): Promise<string> {
    const token = await domainTokenOf(db, clientId);
    if (!token) throw httpError(404, 'This client does not exist.');
    return token;
  }

  /** Stops SSO sessions the domain no longer vouches for and tells the owners (a verified domain lost). */
  async function lost(row: DomainRow, token: string): Promise<void> {
    deps.forgetUsers(await endUncoveredSsoSessions(db, row.clientId));
    const [owners, name] = await Promise.all([
      ownerAddresses(db, row.clientId),
      clientName(db, row.clientId),
    ]);
    const { name: record, value } = verificationRecord(row.domain, token);
    for (const to of owners) {
      await deps.outbox.enqueue({
        clientId: row.clientId,
        ...noticeMail(
          to,
          `${row.domain} is no longer verified for ${name}`,
          [
            `The DNS record that proves ${name} controls ${row.domain} (TXT ${value} at ${record}) was not found when it was checked again, so ${row.domain} is no longer verified.`,
            `Until it is verified again, single sign-on does not sign in addresses at ${row.domain} and ad clicks to it first show a page naming it. Add the record again and press “Verify now” in the domain settings:`,
          ],
          `${deps.publicUrl}/settings/domain?client_id=${row.clientId}`,
        ),
      });
    }
  }

  /** Looks the record up and stores what was found; `lost` when a verified domain lost its record. */
  async function check(row: DomainRow, token: string): Promise<{ row: DomainRow; lost: boolean }> {
    const found = await lookUpVerification(resolver, row.domain, token);
    const now = new Date();
    const verifiedAt =
      found.status === 'found' ? (row.verifiedAt ?? now) : found.status === 'missing' ? null : row.verifiedAt;
    const [updated] = await db
      .update(clientDomains)
      .set({ verifiedAt, lastCheckedAt: now, lastCheckMessage: checkMessage(row.domain, token, found) })
      .where(eq(clientDomains.id, row.id))
      .returning();
    if (!updated) throw httpError(404, 'This domain was removed meanwhile.');
    return { row: updated, lost: row.verifiedAt !== null && verifiedAt === null };
  }

  return {
    async list(clientId: string): Promise<ClientDomains> {
      const token = await tokenOf(clientId);
      const rows = await listDomainRows(db, clientId);
      return { txt_value: verificationRecord('', token).value, domains: rows.map((r) => toReply(r, token)) };
    },

    /** Adds a domain, unverified until its record is found; at most MAX_CLIENT_DOMAINS per client. */
    async add(clientId: string, domain: string): Promise<ClientDomain> {
      const ours = bareHost(deps.appHost);
      if (domainCovers(ours, domain) || domainCovers(domain, ours)) {
        throw fieldError('body.domain', `must be a domain of yours, not ${ours}`);
      }
      const token = await tokenOf(clientId);
      try {
        const row = await db.transaction(async (tx) => {
          // The client's row lock makes the count and the insert one step for concurrent adds.
          await tx.execute(sql`select 1 from ${clients} where ${clients.id} = ${clientId} for update`);
          const [n] = await tx
            .select({ n: count() })
            .from(clientDomains)
            .where(eq(clientDomains.clientId, clientId));
          if ((n?.n ?? 0) >= MAX_CLIENT_DOMAINS) {
            throw fieldConflict('body.domain', `a client can have at most ${MAX_CLIENT_DOMAINS} domains`);
          }
          const [inserted] = await tx.insert(clientDomains).values({ clientId, domain }).returning();
          return inserted;
        });
        if (!row) throw new Error('domain insert returned no row');
        return toReply(row, token);
      } catch (err) {
        if (isUniqueViolation(err)) {
          throw fieldConflict('body.domain', `${domain} is already one of this client's domains`);
        }
        throw err;
      }
    },

    /** Checks the TXT record now ("Verify now"). */
    async verify(clientId: string, id: string): Promise<ClientDomain> {
      const row = await domainRow(db, clientId, id);
      if (!row) throw httpError(404, 'This client has no such domain.');
      const token = await tokenOf(clientId);
      const done = await check(row, token);
      if (done.lost) await lost(done.row, token);
      return toReply(done.row, token);
    },

    async remove(clientId: string, id: string): Promise<boolean> {
      const [row] = await db
        .delete(clientDomains)
        .where(and(eq(clientDomains.clientId, clientId), eq(clientDomains.id, id)))
        .returning();
      if (!row) return false;
      if (row.verifiedAt) deps.forgetUsers(await endUncoveredSsoSessions(db, clientId));
      return true;
    },

    /**
     * The periodic re-check: domains not checked for `everyHours`, oldest first, at most `limit`.
     * Only a definite answer without the record takes verification away; a DNS server that does not
     * answer changes nothing.
     */
    async recheckDue(everyHours: number, limit = 500): Promise<{ checked: number; lost: number }> {
      const rows = await dueDomainRows(db, new Date(Date.now() - everyHours * 3_600_000), limit);
      let lostCount = 0;
      for (const row of rows) {
        try {
          const token = await tokenOf(row.clientId);
          const done = await check(row, token);
          if (done.lost) {
            lostCount++;
            await lost(done.row, token);
          }
        } catch (err) {
          deps.log.warn({ err, domain: row.domain }, 'domain re-check failed');
        }
      }
      return { checked: rows.length, lost: lostCount };
    },
  };
}

export type DomainService = ReturnType<typeof createDomainService>;
