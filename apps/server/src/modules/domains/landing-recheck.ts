import { and, eq, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import { clientSettings, clients, landingDomainChecks } from '../../db/schema/index.ts';
import { lookUpVerification, verificationRecord } from '../../lib/dns.ts';
import { noticeMail } from '../mail/compose.ts';
import { clientName, ownerAddresses } from './repository.ts';
import type { DomainServiceDeps } from './service.ts';

/**
 * The domains.recheck job's look at verified landing domains (issue 37.6): each one not looked at
 * for `everyHours` has its client's TXT token looked up again. A definite answer without it takes
 * the verification away (the domain stops serving the client's pages) and tells the owners; a DNS
 * server that does not answer changes nothing. The CNAME is not looked at: a domain that stops
 * pointing here simply stops reaching us.
 */
export async function recheckLandingDomains(
  deps: Pick<DomainServiceDeps, 'db' | 'resolver' | 'outbox' | 'publicUrl' | 'log'>,
  everyHours: number,
  limit = 500,
): Promise<{ checked: number; lost: number }> {
  const { db } = deps;
  const before = new Date(Date.now() - everyHours * 3_600_000);
  const rows = await db
    .select({
      clientId: clientSettings.clientId,
      domain: clientSettings.landingPageDomain,
      token: clients.domainToken,
    })
    .from(clientSettings)
    .innerJoin(clients, eq(clients.id, clientSettings.clientId))
    .leftJoin(landingDomainChecks, eq(landingDomainChecks.clientId, clientSettings.clientId))
    .where(
      and(
        isNotNull(clientSettings.landingPageDomainVerifiedAt),
        or(isNull(landingDomainChecks.checkedAt), lt(landingDomainChecks.checkedAt, before)),
      ),
    )
    .orderBy(sql`${landingDomainChecks.checkedAt} asc nulls first`)
    .limit(limit);
  let lost = 0;
  for (const row of rows) {
    const domain = row.domain;
    if (!domain) continue;
    try {
      const found = await lookUpVerification(deps.resolver, domain, row.token);
      const now = new Date();
      await db
        .insert(landingDomainChecks)
        .values({ clientId: row.clientId, checkedAt: now })
        .onConflictDoUpdate({ target: landingDomainChecks.clientId, set: { checkedAt: now } });
      if (found.status !== 'missing') continue;
      const gone = await db
        .update(clientSettings)
        .set({ landingPageDomainVerifiedAt: null, updatedAt: now })
        .where(and(eq(clientSettings.clientId, row.clientId), eq(clientSettings.landingPageDomain, domain)))
        .returning({ clientId: clientSettings.clientId });
      if (gone.length === 0) continue;
      lost++;
      await tellOwners(deps, row.clientId, domain, row.token);
    } catch (err) {
      deps.log.warn({ err, domain }, 'landing domain re-check failed');
    }
  }
  return { checked: rows.length, lost };
}

async function tellOwners(
  deps: Pick<DomainServiceDeps, 'db' | 'outbox' | 'publicUrl'>,
  clientId: string,
  domain: string,
  token: string,
) {
  const [owners, name] = await Promise.all([
    ownerAddresses(deps.db, clientId),
    clientName(deps.db, clientId),
  ]);
  const { name: record, value } = verificationRecord(domain, token);
  for (const to of owners) {
    await deps.outbox.enqueue({
      clientId,
      ...noticeMail(
        to,
        `${domain} no longer serves the landing pages of ${name}`,
        [
          `The DNS record that proves ${name} controls ${domain} (TXT ${value} at ${record}) was not found when it was checked again, so landing pages are no longer served at ${domain}.`,
          'Add the record again and press “Check” in the landing page domain settings:',
        ],
        `${deps.publicUrl}/settings/domain?client_id=${clientId}`,
      ),
    });
  }
}
