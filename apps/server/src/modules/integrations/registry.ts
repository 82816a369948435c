import type { VendorsConfig } from '../../config/env.ts';
import { createApolloAdapter } from './adapters/apolloio/adapter.ts';
import { createOutreachAdapter } from './adapters/outreach/adapter.ts';
import { createSalesloftAdapter } from './adapters/salesloft/adapter.ts';
import type { SequenceAdapter, SequenceSource } from './port.ts';
import type { RetryPolicy } from './vendor-http.ts';

export type AdapterOptions = {
  retry?: Partial<RetryPolicy>;
  /**
   * Tests: a loopback fake standing in for a public login host (`https://acme.my.salesforce.com` →
   * the fake's origin) for the server's own calls; the browser still sees the public host.
   */
  loginOrigins?: Record<string, string>;
  /** Tests: the clock request pacing reads (Marketo), moved by `retry.sleep`. */
  now?: () => number;
  /**
   * Tests: an ad network's members per request below the network's own limit (never above it), so a
   * batch's edge (a crash after the first, a throttle or a token's expiry midway) takes a cohort of
   * hundreds, not of tens of thousands. One test per network still pushes at the real limit.
   */
  batchLimit?: number;
};

/** One adapter per sequence source, built from configuration (tests point the URLs at fakes). */
export function createSequenceAdapters(
  vendors: VendorsConfig,
  opts: AdapterOptions = {},
): Record<SequenceSource, SequenceAdapter> {
  return {
    salesloft: createSalesloftAdapter(vendors.salesloft, opts),
    outreach: createOutreachAdapter(vendors.outreach, opts),
    apolloio: createApolloAdapter(vendors.apolloio, opts),
  };
}
