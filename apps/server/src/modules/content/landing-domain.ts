import { and, eq, gt, isNotNull, ne } from 'drizzle-orm';
import { DEFAULT_COLORS } from '@rally/shared';
import type { LandingDomain, LandingDomainCheck } from '@rally/shared/schemas/content';
import type { Db } from '../../db/client.ts';
import { clientSettings, clients, domainReservations, landingDomainChecks } from '../../db/schema/index.ts';
import {
  DnsTimeout,
  bareHost as bare,
  lookUpVerification,
  lookupOrEmpty,
  verificationRecord,
} from '../../lib/dns.ts';
import type { DomainResolver } from '../../lib/dns.ts';
import { fieldConflict, fieldError, httpError, oneRow } from '../../lib/errors.ts';

/**
 * A client's landing domain (go.acme.com): a host of the client's pointed at us by a CNAME, serving
 * /{base58} landing pages. Issue 37.6: pointing at us proves nothing (anyone can claim a name left
 * pointing at Rally), so verification also needs the client's TXT token at `_rally.<domain>`
 * (decision 0013), the domains.recheck job looks at that token again, and a verified domain a client
 * lets go of stays reserved to it for LANDING_DOMAIN_HOLD_DAYS. Several clients may claim a domain
 * (claiming first locks no one out); one at most has it verified.
 */

export type LandingDomainDeps = {
  db: Db;
  /** Our host (PUBLIC_URL's): the CNAME's target; it and its subdomains are not a client's. */
  appHost: string;
  /** Days a released verified domain stays reserved to its client. */
  holdDays: number;
};

type SettingsRow = typeof clientSettings.$inferSelect;

async function settingsRow(db: Db, clientId: string): Promise<SettingsRow | undefined> {
  const [row] = await db.select().from(clientSettings).where(eq(clientSettings.clientId, clientId));
  return row;
}

async function tokenOf(db: Db, clientId: string): Promise<string> {
  const [row] = await db.select({ token: clients.domainToken }).from(clients).where(eq(clients.id, clientId));
  if (!row) throw httpError(404, 'This client does not exist.');
  return row.token;
}

function domainReply(row: SettingsRow | undefined, appHost: string, token: string): LandingDomain {
  const domain = row?.landingPageDomain ?? null;
  const verifiedAt = row?.landingPageDomainVerifiedAt ?? null;
  return {
    domain,
    dns_record: domain ? { type: 'CNAME', name: domain, value: appHost } : null,
    txt_record: domain ? verificationRecord(domain, token) : null,
    verified: domain !== null && verifiedAt !== null,
    verified_at: domain ? (verifiedAt?.toISOString() ?? null) : null,
  };
}

/** Until when another client holds the domain (it let it go lately), or null. */
async function reservedToOther(db: Db, domain: string, clientId: string): Promise<Date | null> {
  const [row] = await db
    .select({ until: domainReservations.reservedUntil })
    .from(domainReservations)
    .where(
      and(
        eq(domainReservations.domain, domain),
        ne(domainReservations.clientId, clientId),
        gt(domainReservations.reservedUntil, new Date()),
      ),
    );
  return row?.until ?? null;
}

/** Keeps a verified domain the client lets go of for it alone, for `holdDays`. */
async function reserve(deps: LandingDomainDeps, row: SettingsRow | undefined, clientId: string) {
  const domain = row?.landingPageDomain;
  if (!domain || !row.landingPageDomainVerifiedAt || deps.holdDays <= 0) return;
  const reservedUntil = new Date(Date.now() + deps.holdDays * 86_400_000);
  await deps.db
    .insert(domainReservations)
    .values({ domain, clientId, reservedUntil })
    .onConflictDoUpdate({ target: domainReservations.domain, set: { clientId, reservedUntil } });
}

const isUniqueViolation = (err: unknown) => {
  const e = err as { code?: string; cause?: { code?: string } };
  return e.code === '23505' || e.cause?.code === '23505';
};

const takenBy = (domain: string) =>
  fieldConflict('body.domain', `${domain} is the verified landing page domain of another client`);
const reserved = (domain: string, until: Date) =>
  fieldConflict(
    'body.domain',
    `${domain} was the landing page domain of another client and stays reserved to it until ${until.toISOString().slice(0, 10)}`,
  );

export async function getLandingDomain(deps: LandingDomainDeps, clientId: string): Promise<LandingDomain> {
  const [row, token] = await Promise.all([settingsRow(deps.db, clientId), tokenOf(deps.db, clientId)]);
  return domainReply(row, deps.appHost, token);
}

/** Sets the domain, unverified until a check finds both records; refused while another client holds it. */
export async function setLandingDomain(
  deps: LandingDomainDeps,
  clientId: string,
  domain: string,
): Promise<LandingDomain> {
  const { db, appHost } = deps;
  if (domain === bare(appHost) || domain.endsWith(`.${bare(appHost)}`)) {
    throw fieldError('body.domain', `must be a domain of yours, not ${bare(appHost)}`);
  }
  const token = await tokenOf(db, clientId);
  const until = await reservedToOther(db, domain, clientId);
  if (until) throw reserved(domain, until);
  const [verifiedElsewhere] = await db
    .select({ clientId: clientSettings.clientId })
    .from(clientSettings)
    .where(
      and(
        eq(clientSettings.landingPageDomain, domain),
        isNotNull(clientSettings.landingPageDomainVerifiedAt),
        ne(clientSettings.clientId, clientId),
      ),
    );
  if (verifiedElsewhere) throw takenBy(domain);
  const current = await settingsRow(db, clientId);
  if (current?.landingPageDomain === domain) return domainReply(current, appHost, token);
  await reserve(deps, current, clientId);
  const set = { landingPageDomain: domain, landingPageDomainVerifiedAt: null };
  const row = oneRow(
    await db
      .insert(clientSettings)
      .values({ clientId, colors: { ...DEFAULT_COLORS }, ...set })
      .onConflictDoUpdate({ target: clientSettings.clientId, set: { ...set, updatedAt: new Date() } })
      .returning(),
  );
  return domainReply(row, appHost, token);
}

export async function removeLandingDomain(deps: LandingDomainDeps, clientId: string): Promise<LandingDomain> {
  const { db } = deps;
  const token = await tokenOf(db, clientId);
  await reserve(deps, await settingsRow(db, clientId), clientId);
  const [row] = await db
    .update(clientSettings)
    .set({ landingPageDomain: null, landingPageDomainVerifiedAt: null, updatedAt: new Date() })
    .where(eq(clientSettings.clientId, clientId))
    .returning();
  return domainReply(row, deps.appHost, token);
}

async function lookup(fn: () => Promise<string[]>): Promise<string[]> {
  try {
    return await lookupOrEmpty(fn);
  } catch (err) {
    if (err instanceof DnsTimeout) {
      throw httpError(503, 'The DNS lookup timed out. Try the check again in a minute.');
    }
    throw err;
  }
}

/**
 * Resolves the domain: verified when the client's TXT token is at `_rally.<domain>` and the domain
 * is a CNAME to our host (or, an apex or a flattened CNAME, has the same addresses as our host).
 */
export async function checkLandingDomain(
  deps: LandingDomainDeps & { resolver: DomainResolver },
  clientId: string,
): Promise<LandingDomainCheck> {
  const { db, appHost, resolver } = deps;
  const [row, token] = await Promise.all([settingsRow(db, clientId), tokenOf(db, clientId)]);
  const domain = row?.landingPageDomain;
  if (!row || !domain) throw httpError(404, 'No landing page domain is set. Set one first.');
  const ours = bare(appHost);
  const txt = await lookUpVerification(resolver, domain, token);
  if (txt.status === 'unknown') throw httpError(503, 'DNS did not answer. Try the check again in a minute.');
  const cnames = (await lookup(() => resolver.resolveCname(domain))).map(bare);
  let pointsHere = cnames.includes(ours);
  let resolved = cnames;
  if (!pointsHere) {
    const [mine4, mine6, their4, their6] = await Promise.all([
      lookup(() => resolver.resolve4(ours)),
      lookup(() => resolver.resolve6(ours)),
      cnames.length ? Promise.resolve([]) : lookup(() => resolver.resolve4(domain)),
      cnames.length ? Promise.resolve([]) : lookup(() => resolver.resolve6(domain)),
    ]);
    const theirs = [...their4, ...their6];
    const mine = new Set([...mine4, ...mine6]);
    if (!cnames.length) resolved = theirs;
    pointsHere = theirs.length > 0 && theirs.every((a) => mine.has(a));
  }
  const until = await reservedToOther(db, domain, clientId);
  const verified = pointsHere && txt.status === 'found' && until === null;
  const verifiedAt = verified ? (row.landingPageDomainVerifiedAt ?? new Date()) : null;
  let updated: SettingsRow | undefined;
  try {
    [updated] = await db
      .update(clientSettings)
      .set({ landingPageDomainVerifiedAt: verifiedAt })
      .where(and(eq(clientSettings.clientId, clientId), eq(clientSettings.landingPageDomain, domain)))
      .returning();
  } catch (err) {
    // Another client verified it first (both had the records: only one may serve it).
    if (isUniqueViolation(err))
      throw httpError(409, `${domain} is the verified landing page domain of another client.`);
    throw err;
  }
  if (verified) {
    // Its own reservation is no longer needed: the verified domain is held by the setting itself.
    await db
      .delete(domainReservations)
      .where(and(eq(domainReservations.domain, domain), eq(domainReservations.clientId, clientId)));
    await db
      .insert(landingDomainChecks)
      .values({ clientId, checkedAt: new Date() })
      .onConflictDoUpdate({ target: landingDomainChecks.clientId, set: { checkedAt: new Date() } });
  }
  const { name, value } = verificationRecord(domain, token);
  const problems: string[] = [];
  if (until) {
    problems.push(
      `${domain} was the landing page domain of another client and stays reserved to it until ${until.toISOString().slice(0, 10)}.`,
    );
  }
  if (txt.status === 'missing') problems.push(`Add a TXT record at ${name} with the value ${value}.`);
  if (!pointsHere) {
    problems.push(
      resolved.length === 0
        ? `${domain} has no DNS record yet. Create a CNAME record from ${domain} to ${ours}.`
        : `${domain} points at ${resolved.join(', ')}, not ${ours}. Change its CNAME record to ${ours}.`,
    );
  }
  const message = verified
    ? `${domain} points at ${ours} and has the TXT record. Landing pages are served there.`
    : `${problems.join(' ')} DNS changes can take up to an hour to show.`;
  return { ...domainReply(updated ?? row, appHost, token), resolved, message };
}
