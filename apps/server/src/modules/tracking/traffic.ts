import type { IncomingHttpHeaders } from 'node:http';
import { isbot } from 'isbot';

const PREFETCH = /prefetch|prerender|preview/i;

// The crawler list is one large pattern; the same few user agents come back again and again.
const verdicts = new Map<string, boolean>();
function isBotAgent(ua: string): boolean {
  let bot = verdicts.get(ua);
  if (bot === undefined) {
    bot = isbot(ua);
    if (verdicts.size >= 5_000) verdicts.clear();
    verdicts.set(ua, bot);
  }
  return bot;
}

/**
 * Requests that must not count as engagement (issue 7: "bot and prefetch traffic is not counted"):
 * HEAD probes, speculative loads the browser or a link scanner announces (Purpose / Sec-Purpose /
 * X-Purpose / X-Moz), and known crawlers by user agent (the maintained `isbot` list). A request
 * with no user agent is no browser either. They still get the ad or the redirect, uncounted.
 */
export function isAutomated(request: { method?: string; headers: IncomingHttpHeaders }): boolean {
  if (request.method === 'HEAD') return true;
  const h = request.headers;
  for (const name of ['purpose', 'sec-purpose', 'x-purpose', 'x-moz'] as const) {
    const v = h[name];
    if (typeof v === 'string' && PREFETCH.test(v)) return true;
  }
  const ua = h['user-agent'];
  return !ua || isBotAgent(ua);
}
