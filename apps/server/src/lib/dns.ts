import { Resolver } from 'node:dns/promises';

/**
 * The DNS lookups the domain checks make. `DNS_SERVERS` picks the resolvers (tests run one on
 * loopback); unset, the system's.
 */
export type DomainResolver = {
  resolveCname(host: string): Promise<string[]>;
  resolve4(host: string): Promise<string[]>;
  resolve6(host: string): Promise<string[]>;
  resolveTxt(host: string): Promise<string[][]>;
};

export function createResolver(servers: string[]): DomainResolver {
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  if (servers.length) resolver.setServers(servers);
  return resolver;
}

/** A host name as compared: lower case, without the root's trailing dot. */
export const bareHost = (host: string) => host.toLowerCase().replace(/\.$/, '');

/** Whether `host` is `domain` or one of its subdomains (a verified domain covers its subdomains). */
export function domainCovers(domain: string, host: string): boolean {
  const d = bareHost(domain);
  const h = bareHost(host);
  return h === d || h.endsWith(`.${d}`);
}

/**
 * The TXT record that proves a client controls a domain (docs/decisions/0013). It sits at
 * `_rally.<domain>`, not at the domain itself, because a landing domain is a CNAME and a name with a
 * CNAME can hold no other record (RFC 1034 §3.6.2).
 */
export function verificationRecord(domain: string, token: string) {
  return { type: 'TXT' as const, name: `_rally.${domain}`, value: `rally-verification=${token}` };
}

/**
 * What a look for the verification record found: the token (`found`), a definite answer without it
 * (`missing`: no such name, no TXT there, or other values), or no answer at all (`unknown`: a
 * timeout or a failing DNS server, which must not take a verified domain away).
 */
export type VerificationLookup =
  { status: 'found' } | { status: 'missing'; values: string[] } | { status: 'unknown'; code: string };

const NO_SUCH_RECORD = new Set(['ENODATA', 'ENOTFOUND', 'ENONAME', 'NXDOMAIN']);

export async function lookUpVerification(
  resolver: DomainResolver,
  domain: string,
  token: string,
): Promise<VerificationLookup> {
  const { name, value } = verificationRecord(domain, token);
  let records: string[][];
  try {
    records = await resolver.resolveTxt(name);
  } catch (err) {
    const code = (err as { code?: string }).code ?? 'EUNKNOWN';
    if (NO_SUCH_RECORD.has(code)) return { status: 'missing', values: [] };
    return { status: 'unknown', code };
  }
  // A long TXT value may come in several character-strings; they make one value (RFC 7208 §3.3).
  const values = records.map((chunks) => chunks.join('').trim());
  return values.includes(value) ? { status: 'found' } : { status: 'missing', values };
}

const NO_RECORD = new Set([...NO_SUCH_RECORD, 'ESERVFAIL', 'EREFUSED']);

/** A lookup whose "no such record" answers are an empty list; a timeout is thrown as `DnsTimeout`. */
export async function lookupOrEmpty(fn: () => Promise<string[]>): Promise<string[]> {
  try {
    return await fn();
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    if (NO_RECORD.has(code)) return [];
    if (code === 'ETIMEOUT' || code === 'ECONNREFUSED') throw new DnsTimeout(code);
    throw err;
  }
}

export class DnsTimeout extends Error {
  constructor(code: string) {
    super(`DNS lookup failed: ${code}`);
    this.name = 'DnsTimeout';
  }
}
