import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { isbot } from 'isbot';
import type { EngagementVerdict, VerdictReason } from '@rally/shared/schemas/tracking';
import { rangeSet } from './cidr.ts';
import type { RangeSet } from './cidr.ts';

/**
 * The verdict of an impression or a click (issue 38, decision 0017): a person's, an Apple Mail
 * Privacy Protection prefetch (`machine_open`), a mail security scanner's, or a bot's. Pure
 * functions over the request's method, headers and address, with every list built once at load:
 * this runs on the ad tag's fast lane. The burst rule (several fetches of one message within a
 * couple of seconds) needs other requests and is decided by the ingest consumer (repository.ts).
 */
export type Judged = { verdict: EngagementVerdict; reason: VerdictReason };
export type TagKind = 'impression' | 'click';
export type TagRequest = { method?: string; headers: IncomingHttpHeaders; ip: string };

type GatewayLabel = { name: string; imageProxy: VerdictReason | null };
export type AddressLists = { apple: RangeSet<true>; gateways: RangeSet<GatewayLabel> };

type AppleFile = { retrieved: string; ranges: string[] };
type GatewayFile = {
  retrieved: string;
  gateways: { name: string; imageProxy?: VerdictReason; ranges: string[] }[];
};

const DATA = new URL('./mail-addresses/', import.meta.url);
const readJson = <T>(name: string): T => JSON.parse(readFileSync(new URL(name, DATA), 'utf8')) as T;

export function buildLists(apple: AppleFile, gateways: GatewayFile): AddressLists {
  return {
    apple: rangeSet(apple.ranges.map((c): [string, true] => [c, true])),
    gateways: rangeSet(
      gateways.gateways.flatMap((g) =>
        g.ranges.map((c): [string, GatewayLabel] => [c, { name: g.name, imageProxy: g.imageProxy ?? null }]),
      ),
    ),
  };
}

/** The shipped, dated lists (mail-addresses/*.json; `npm run refresh:mail-addresses` renews them). */
export const MAIL_ADDRESSES: AddressLists = buildLists(
  readJson<AppleFile>('apple-mail-privacy.json'),
  readJson<GatewayFile>('mail-gateways.json'),
);

// What a user agent alone says. Order matters: the mail proxies and gateways are matched before the
// crawler list, which calls the proxies bots (the cause of issue 38's uncounted Gmail opens).
type AgentKind =
  | 'gmail_proxy'
  | 'yahoo_proxy'
  | 'outlook_proxy'
  | 'gateway'
  | 'bare'
  | 'crawler'
  | 'outlook'
  | 'apple_mail'
  | 'mail_client'
  | 'browser';

const AGENT_RULES: [RegExp, AgentKind][] = [
  [/GoogleImageProxy|via ggpht\.com/i, 'gmail_proxy'],
  [/YahooMailProxy/i, 'yahoo_proxy'],
  [/OutlookImageProxy|Outlook-Image-Proxy/i, 'outlook_proxy'],
  // Gateways that name themselves (their other fetches use a browser's user agent: see the ranges).
  [
    /Barracuda|Mimecast|Proofpoint|IronPort|Cisco.?Secure|Trend ?Micro|Sophos|Forcepoint|SafeLinks|MSFT-?ATP|Symantec/i,
    'gateway',
  ],
  // The Outlook.com link preview: a decade-old IE 10 on Windows 8 that no person still runs.
  [/^Mozilla\/5\.0 \(compatible; MSIE 10\.0; Windows NT 6\.2; WOW64; Trident\/6\.0\)?$/, 'gateway'],
  [/^(Mozilla\/5\.0)?$/, 'bare'],
];
const OUTLOOK = /Microsoft Outlook|ms-office|MSOffice|Outlook-iOS|Outlook-Android|OneOutlook/i;
const MAIL_CLIENT = /Thunderbird|Airmail|Spark\/|Superhuman|eM Client|Mailbird|Postbox/i;
// Apple Mail's WebKit view names no browser: WebKit without "Version/… Safari" or another browser.
const APPLE_MAIL = /AppleWebKit\/[\d.]+ \(KHTML, like Gecko\)(?: Mobile\/\w+)?$/;

const agentKinds = new Map<string, AgentKind>();
function agentKindOf(ua: string): AgentKind {
  let kind = agentKinds.get(ua);
  if (kind === undefined) {
    kind = 'browser';
    for (const [re, k] of AGENT_RULES) {
      if (re.test(ua)) {
        kind = k;
        break;
      }
    }
    if (kind === 'browser') {
      if (OUTLOOK.test(ua)) kind = 'outlook';
      else if (MAIL_CLIENT.test(ua)) kind = 'mail_client';
      else if (APPLE_MAIL.test(ua)) kind = 'apple_mail';
      else if (isbot(ua)) kind = 'crawler';
    }
    // The same few user agents come back again and again; a flood of odd ones only empties this.
    if (agentKinds.size >= 5_000) agentKinds.clear();
    agentKinds.set(ua, kind);
  }
  return kind;
}

const PREFETCH = /prefetch|prerender|preview/i;
const NAVIGATION_DESTS = new Set(['document', 'iframe', 'frame', 'fencedframe']);

function prefetched(h: IncomingHttpHeaders): boolean {
  for (const name of ['purpose', 'sec-purpose', 'x-purpose', 'x-moz'] as const) {
    const v = h[name];
    if (typeof v === 'string' && PREFETCH.test(v)) return true;
  }
  return false;
}

/**
 * A click a browser made by following a link says so (Fetch Metadata): `Sec-Fetch-Mode: navigate`
 * and a document destination. An `<img src=…/c>` sends `image`/`no-cors`, a script `cors`/`empty`.
 * Clients that send no Fetch Metadata at all (mail apps' web views, older browsers) are not judged
 * by it.
 */
function notNavigation(h: IncomingHttpHeaders): boolean {
  const mode = h['sec-fetch-mode'];
  if (typeof mode === 'string' && mode !== 'navigate') return true;
  const dest = h['sec-fetch-dest'];
  return typeof dest === 'string' && !NAVIGATION_DESTS.has(dest);
}

const j = (verdict: EngagementVerdict, reason: VerdictReason): Judged => ({ verdict, reason });

/** The verdict of one tag request, by its own signs. */
export function judge(req: TagRequest, kind: TagKind, lists: AddressLists = MAIL_ADDRESSES): Judged {
  if (req.method === 'HEAD') return j('bot', 'head');
  const h = req.headers;
  if (prefetched(h)) return j('bot', 'prefetch');
  const ua = h['user-agent'] ?? '';
  const agent = agentKindOf(ua);
  // Mail Privacy Protection fetches a message's images at delivery from Private Relay's egress,
  // with no user agent or a bare one; a person browsing through Private Relay sends a full one.
  if (agent === 'bare' && kind === 'impression' && lists.apple.lookup(req.ip))
    return j('machine_open', 'apple_mpp');
  if (!ua) return j('bot', 'no_user_agent');
  switch (agent) {
    case 'gmail_proxy':
    case 'yahoo_proxy':
    case 'outlook_proxy':
      // They load images as a message is opened; a proxy following the click link is no person.
      return kind === 'impression' ? j('person', agent) : j('scanner', 'proxy_click');
    case 'gateway':
      return j('scanner', 'gateway_agent');
    case 'bare':
    case 'crawler':
      return j('bot', 'crawler');
    default:
  }
  const gateway = lists.gateways.lookup(req.ip);
  if (gateway) {
    if (kind === 'impression' && gateway.imageProxy) return j('person', gateway.imageProxy);
    return j('scanner', 'gateway_address');
  }
  if (kind === 'click' && notNavigation(h)) return j('scanner', 'not_navigation');
  if (agent === 'outlook' || agent === 'apple_mail' || agent === 'mail_client') return j('person', agent);
  return j('person', 'browser');
}

const NAMED_RANGES: Record<string, string[]> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/**
 * The requester's address as Fastify's `request.ip` gives it under the app's `TRUST_PROXY` (the
 * proxy-addr walk): from the socket back through X-Forwarded-For while each hop is trusted. For the
 * fast lane, which answers before Fastify sees the request.
 */
export function clientIpOf(trust: false | number | string[]): (req: IncomingMessage) => string {
  const trusted =
    Array.isArray(trust) &&
    rangeSet(trust.flatMap((t) => (NAMED_RANGES[t] ?? [t]).map((c): [string, true] => [c, true])));
  return (req) => {
    const socket = req.socket.remoteAddress ?? '';
    if (trust === false) return socket;
    const xff = req.headers['x-forwarded-for'];
    const hops = (Array.isArray(xff) ? xff.join(',') : (xff ?? ''))
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean)
      .reverse();
    // Each address is believed to have come through the one before it only if that one is trusted.
    let addr = socket;
    for (const [i, next] of hops.entries()) {
      const ok = typeof trust === 'number' ? i < trust : trusted ? trusted.lookup(addr) === true : false;
      if (!ok) return addr;
      addr = next;
    }
    return addr;
  };
}

/**
 * Requests that count nothing at all, whatever they fetch (landing page views): HEAD, prefetches,
 * no user agent and crawlers (issue 7). The mail proxies are no crawlers here.
 */
export function isAutomated(request: { method?: string; headers: IncomingHttpHeaders }): boolean {
  if (request.method === 'HEAD' || prefetched(request.headers)) return true;
  const ua = request.headers['user-agent'];
  if (!ua) return true;
  const agent = agentKindOf(ua);
  return agent === 'crawler' || agent === 'bare' || agent === 'gateway';
}
