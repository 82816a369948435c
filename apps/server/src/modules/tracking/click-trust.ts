import { domainCovers } from '../../lib/dns.ts';
import type { TargetState } from './repository.ts';

/**
 * Whether a click may be redirected straight to `url` (issue 37.8): our own paths and host (the
 * landing pages), or a host on one of the client's verified domains or its verified landing domain
 * (decision 0013), all read from the target's cached state. Anything else would make the click tag
 * an open redirect on our domain: it gets the page that names the destination.
 */
export function goesStraight(url: string, target: TargetState, appHost: string): boolean {
  if (url.startsWith('/')) return !url.startsWith('//') && !url.startsWith('/\\');
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return false;
  }
  return domainCovers(appHost, host) || target.verifiedDomains.some((d) => domainCovers(d, host));
}
