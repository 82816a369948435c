import { lookup as systemLookup } from 'node:dns';
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { fieldError } from './errors.ts';

/**
 * The one way the server fetches a URL someone else chose (ad pictures, SSO issuers, webhooks):
 * http(s) only; the host's addresses are resolved once, checked, and the connection goes to the
 * checked address (a custom `lookup`, so a second DNS answer cannot point us elsewhere); loopback,
 * private, link-local, CGNAT, multicast, reserved and metadata addresses are refused in every
 * spelling (IPv4-mapped, IPv4-compatible, NAT64 and 6to4 IPv6 forms; decimal, hex and short IPv4
 * hosts, which the URL parser normalises to dotted quads); redirects are followed here and each hop
 * is checked again; a connect timeout, a total timeout and a size cap bound the work.
 *
 * `allowPrivate` (the operator setting ALLOW_PRIVATE_FETCH) lets it reach private and loopback
 * addresses: local development and the tests' loopback fakes. Off by default.
 */

export type GuardedFetchOptions = {
  /** Time to open the TCP connection (per hop). Default 5 s. */
  connectTimeoutMs?: number;
  /** Time for the whole fetch, redirects and body included. Default 10 s. */
  timeoutMs?: number;
  /** Largest body accepted; a larger one aborts the fetch. Default 10 MB. */
  maxBytes?: number;
  /** Redirects followed (each re-checked). Default 5. */
  maxRedirects?: number;
  /** Reach private, loopback and other internal addresses too (ALLOW_PRIVATE_FETCH). Default false. */
  allowPrivate?: boolean;
  /** Addresses let through despite the rules (tests: a loopback fake standing in for a public host). */
  trustAddress?: (address: string) => boolean;
  /** Name resolution (tests); default the system's `dns.lookup`. */
  lookup?: (hostname: string) => Promise<LookupAddress[]>;
};

export type GuardedFetchInit = {
  method?: string;
  headers?: ConstructorParameters<typeof Headers>[0];
  body?: string | Uint8Array | URLSearchParams | null;
  signal?: AbortSignal | null;
  /** 'follow' (default) follows redirects, checking each; 'manual' returns the 3xx; 'error' throws. */
  redirect?: 'follow' | 'manual' | 'error';
};

export type FetchFailureReason =
  'scheme' | 'address' | 'dns' | 'redirects' | 'timeout' | 'too_large' | 'network';

/** Any failure of guardedFetch; `reason` says which. */
export class GuardedFetchError extends Error {
  readonly reason: FetchFailureReason;
  readonly url: string;
  constructor(reason: FetchFailureReason, url: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GuardedFetchError';
    this.reason = reason;
    this.url = url;
  }
}

/** The URL was refused by policy (scheme, an internal address, too many redirects): never fetched. */
export class FetchBlockedError extends GuardedFetchError {
  constructor(reason: 'scheme' | 'address' | 'dns' | 'redirects', url: string, message: string) {
    super(reason, url, message);
    this.name = 'FetchBlockedError';
  }
}

/** A short sentence for a 422 naming the field ("must be a public http(s) address"). */
export function fetchErrorMessage(err: GuardedFetchError): string {
  switch (err.reason) {
    case 'scheme':
      return 'must be an http:// or https:// URL';
    case 'address':
      return 'must point to a public internet address (private, loopback and internal addresses are refused)';
    case 'dns':
      return 'names a host that does not resolve';
    case 'redirects':
      return 'redirects too many times or to a refused address';
    case 'timeout':
      return 'did not answer in time';
    case 'too_large':
      return 'answered with too much data';
    default:
      return 'could not be reached';
  }
}

const DEFAULTS = { connectTimeoutMs: 5_000, timeoutMs: 10_000, maxBytes: 10 * 1024 * 1024, maxRedirects: 5 };

/** Why an address may not be fetched (its ipaddr.js range, e.g. "loopback"), or null when it is public. */
export function blockedAddressRange(address: string): string | null {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(address.replace(/^\[|\]$/g, ''));
  } catch {
    return 'invalid';
  }
  if (ip.kind() === 'ipv4') {
    const range = (ip as ipaddr.IPv4).range();
    return range === 'unicast' ? null : range;
  }
  const v6 = ip as ipaddr.IPv6;
  const range = v6.range();
  const part = (i: number) => v6.parts[i] ?? 0;
  // Forms that carry an IPv4 address: judge the IPv4 address.
  const embedded = (hi: number, lo: number) =>
    blockedAddressRange(`${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`);
  if (range === 'ipv4Mapped' || range === 'rfc6145') {
    const why = embedded(part(6), part(7));
    return why && `${range} ${why}`;
  }
  if (range === 'rfc6052') {
    // NAT64, 64:ff9b::/96 (the IPv4 address in the last 32 bits) and 64:ff9b:1::/48 (local use).
    if (part(2) !== 0) return 'rfc6052 local-use';
    const why = embedded(part(6), part(7));
    return why && `nat64 ${why}`;
  }
  if (range === '6to4') {
    const why = embedded(part(1), part(2));
    return why && `6to4 ${why}`;
  }
  if (range === 'unicast') {
    // IPv4-compatible (::a.b.c.d, deprecated) falls in no ipaddr.js range: the first 96 bits are zero.
    if (v6.parts.slice(0, 6).every((p) => p === 0)) return 'ipv4Compatible';
    return null;
  }
  // Teredo (an obfuscated IPv4 address), ULA (fc00::/7, incl. fd00:ec2::254), link-local, multicast,
  // loopback, unspecified, site-local, discard, reserved, benchmarking and the rest.
  return range;
}

/** http(s) and, unless private addresses are allowed, not an internal IP literal. Throws FetchBlockedError. */
function checkUrl(url: URL, allowPrivate: boolean, trust?: (address: string) => boolean): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchBlockedError('scheme', url.href, `${url.protocol} URLs are not fetched`);
  }
  if (allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && !trust?.(host)) {
    const why = blockedAddressRange(host);
    if (why) throw new FetchBlockedError('address', url.href, `${host} is an internal address (${why})`);
  }
}

const defaultLookup = (hostname: string) =>
  new Promise<LookupAddress[]>((resolve, reject) =>
    systemLookup(hostname, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );

/** Resolves a host and checks every address it has (one internal address refuses the host). */
async function resolveChecked(
  url: URL,
  hostname: string,
  lookup: (h: string) => Promise<LookupAddress[]>,
  allowPrivate: boolean,
  trust?: (address: string) => boolean,
): Promise<LookupAddress[]> {
  let addresses: LookupAddress[];
  try {
    addresses = await lookup(hostname);
  } catch {
    throw new FetchBlockedError('dns', url.href, `${hostname} does not resolve`);
  }
  if (addresses.length === 0) throw new FetchBlockedError('dns', url.href, `${hostname} does not resolve`);
  if (!allowPrivate) {
    for (const a of addresses) {
      const why = trust?.(a.address) ? null : blockedAddressRange(a.address);
      if (why) {
        throw new FetchBlockedError('address', url.href, `${hostname} resolves to ${a.address} (${why})`);
      }
    }
  }
  return addresses;
}

/**
 * Checks a URL before storing it (a form's image or issuer URL): the scheme, and that its host
 * resolves to public addresses only. The fetch checks again (DNS answers change).
 */
export async function checkFetchableUrl(
  raw: string | URL,
  opts: Pick<GuardedFetchOptions, 'allowPrivate' | 'lookup'> = {},
): Promise<void> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchBlockedError('scheme', String(raw), 'not a URL');
  }
  const allowPrivate = opts.allowPrivate ?? false;
  checkUrl(url, allowPrivate);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) === 0 && !allowPrivate) await resolveChecked(url, host, opts.lookup ?? defaultLookup, false);
}

/**
 * For routes: checks a user-given URL that the server will fetch (checkFetchableUrl), and answers a
 * 422 naming `field` when it is refused. Non-http(s) values (upload paths, data: URIs) are let through.
 */
export async function assertFetchableUrl(
  field: string,
  raw: string,
  opts: Pick<GuardedFetchOptions, 'allowPrivate' | 'lookup'>,
): Promise<void> {
  if (!/^https?:/i.test(raw)) return;
  try {
    await checkFetchableUrl(raw, opts);
  } catch (err) {
    if (err instanceof GuardedFetchError) throw fieldError(field, fetchErrorMessage(err));
    throw err;
  }
}

type Hop = { status: number; statusText: string; headers: http.IncomingHttpHeaders; body: Buffer | null };

const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * Fetches `url` under the rules above and returns a standard Response with the whole body read
 * (at most maxBytes). Throws FetchBlockedError for a refused URL or address, GuardedFetchError for a
 * timeout ('timeout'), a body over the cap ('too_large') or a network failure ('network').
 */
export async function guardedFetch(
  input: string | URL,
  init: GuardedFetchInit = {},
  options: GuardedFetchOptions = {},
): Promise<Response> {
  const o = { ...DEFAULTS, ...options };
  const allowPrivate = options.allowPrivate ?? false;
  const lookup = options.lookup ?? defaultLookup;
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new FetchBlockedError('scheme', String(input), 'not a URL');
  }

  const deadline = new AbortController();
  const timer = setTimeout(
    () =>
      deadline.abort(
        new GuardedFetchError('timeout', url.href, `no complete answer within ${o.timeoutMs} ms`),
      ),
    o.timeoutMs,
  );
  const signal = init.signal ? AbortSignal.any([init.signal, deadline.signal]) : deadline.signal;

  let method = (init.method ?? 'GET').toUpperCase();
  const headers: Record<string, string> = {};
  new Headers(init.headers ?? undefined).forEach((v, k) => {
    headers[k] = v;
  });
  let body: Buffer | null = null;
  if (init.body instanceof URLSearchParams) {
    body = Buffer.from(init.body.toString());
    headers['content-type'] ??= 'application/x-www-form-urlencoded;charset=UTF-8';
  } else if (typeof init.body === 'string') {
    body = Buffer.from(init.body);
    headers['content-type'] ??= 'text/plain;charset=UTF-8';
  } else if (init.body) {
    body = Buffer.from(init.body.buffer, init.body.byteOffset, init.body.byteLength);
  }
  headers['user-agent'] ??= 'Rally/1';
  // No compression: a small compressed body could expand past the cap unseen.
  headers['accept-encoding'] = 'identity';

  try {
    for (let redirects = 0; ; redirects++) {
      checkUrl(url, allowPrivate, options.trustAddress);
      const hop = await request(
        url,
        method,
        headers,
        body,
        signal,
        o,
        lookup,
        allowPrivate,
        options.trustAddress,
      );
      const location = hop.headers.location;
      if (hop.status >= 300 && hop.status < 400 && location && init.redirect !== 'manual') {
        if (init.redirect === 'error') throw new GuardedFetchError('network', url.href, 'redirected');
        if (redirects >= o.maxRedirects) {
          throw new FetchBlockedError('redirects', url.href, `more than ${o.maxRedirects} redirects`);
        }
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new GuardedFetchError('network', url.href, `bad redirect location ${location}`);
        }
        if (next.origin !== url.origin) {
          delete headers.authorization;
          delete headers.cookie;
          delete headers['proxy-authorization'];
        }
        if (hop.status === 303 || ((hop.status === 301 || hop.status === 302) && method === 'POST')) {
          if (method !== 'HEAD') method = 'GET';
          body = null;
          delete headers['content-type'];
        }
        url = next;
        continue;
      }
      const h = new Headers();
      for (const [k, v] of Object.entries(hop.headers)) {
        if (v === undefined) continue;
        for (const one of Array.isArray(v) ? v : [v]) h.append(k, one);
      }
      const status = hop.status >= 200 && hop.status <= 599 ? hop.status : 502;
      const res = new Response(NULL_BODY.has(status) ? null : hop.body, {
        status,
        statusText: hop.statusText,
        headers: h,
      });
      Object.defineProperty(res, 'url', { value: url.href });
      Object.defineProperty(res, 'redirected', { value: redirects > 0 });
      return res;
    }
  } catch (err) {
    if (signal.aborted) {
      const why: unknown = signal.reason;
      if (why instanceof GuardedFetchError) throw why;
      throw new GuardedFetchError('timeout', url.href, 'aborted', { cause: why });
    }
    if (err instanceof GuardedFetchError) throw err;
    throw new GuardedFetchError('network', url.href, `${url.host}: ${(err as Error).message}`, {
      cause: err,
    });
  } finally {
    clearTimeout(timer);
  }
}

function request(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Buffer | null,
  signal: AbortSignal,
  o: typeof DEFAULTS,
  lookup: (h: string) => Promise<LookupAddress[]>,
  allowPrivate: boolean,
  trust: ((address: string) => boolean) | undefined,
): Promise<Hop> {
  return new Promise<Hop>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    let blocked: Error | null = null;
    // Node calls this to connect a host name (never for an IP literal, checked before): the
    // connection goes to the address handed back here, which is the one just checked.
    const pinnedLookup = (
      hostname: string,
      opts: { all?: boolean },
      cb: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
    ) => {
      resolveChecked(url, hostname, lookup, allowPrivate, trust).then(
        (addresses) => {
          const [first] = addresses;
          if (opts.all || !first) cb(null, addresses);
          else cb(null, first.address, first.family);
        },
        (err: Error) => {
          blocked = err;
          cb(err, []);
        },
      );
    };
    const client = url.protocol === 'https:' ? https : http;
    const reqHeaders = { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) };
    const req = client.request(url, {
      method,
      headers: reqHeaders,
      lookup: pinnedLookup as unknown as http.RequestOptions['lookup'],
      agent: false,
      signal,
    });
    const connectTimer = setTimeout(() => {
      req.destroy(
        new GuardedFetchError('timeout', url.href, `no connection within ${o.connectTimeoutMs} ms`),
      );
    }, o.connectTimeoutMs);
    req.on('socket', (socket) => {
      if (!socket.connecting) clearTimeout(connectTimer);
      else socket.once('connect', () => clearTimeout(connectTimer));
    });
    req.on('error', (err) => {
      clearTimeout(connectTimer);
      reject(blocked ?? err);
    });
    req.on('response', (res) => {
      clearTimeout(connectTimer);
      const done = (b: Buffer | null) =>
        resolve({
          status: res.statusCode ?? 0,
          statusText: res.statusMessage ?? '',
          headers: res.headers,
          body: b,
        });
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        res.resume();
        return done(null);
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > o.maxBytes) {
        req.destroy();
        return reject(
          new GuardedFetchError('too_large', url.href, `body of ${declared} bytes is over the cap`),
        );
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > o.maxBytes) {
          req.destroy();
          reject(new GuardedFetchError('too_large', url.href, `body over ${o.maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => done(Buffer.concat(chunks)));
      res.on('error', reject);
      res.on('aborted', () => reject(new GuardedFetchError('network', url.href, 'connection closed early')));
    });
    req.end(body ?? undefined);
  });
}
