import { describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestApp } from './helpers.ts';
import { Browser } from './http.ts';

const PRODUCTION = { NODE_ENV: 'production', APP_SECRET: 'p'.repeat(64) };

/** `n` failed sign-ins for unknown addresses, each with its own X-Forwarded-For; their statuses. */
async function signInsWithForgedAddresses(
  app: FastifyInstance,
  n: number,
  remoteAddress = '127.0.0.1',
): Promise<number[]> {
  const b = new Browser(app);
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await b.request({
      method: 'POST',
      url: '/v1/api/auth',
      payload: { email: `nobody-${i}@example.test`, password: 'wrong-password' },
      headers: { 'x-forwarded-for': `198.51.100.${i + 1}` },
      remoteAddress,
    });
    statuses.push(res.statusCode);
  }
  return statuses;
}

// Issue 37 item 4: production trusted every peer's X-Forwarded-For (trustProxy: true), so a client
// wrote a new address on each request and no per-IP limit ever counted it: 55 × 400, no 429.
describe('per-IP limits in production (TRUST_PROXY)', () => {
  it('without TRUST_PROXY a forged X-Forwarded-For is ignored: the 51st failed sign-in from one address gets 429', async () => {
    const app = await createTestApp({ env: PRODUCTION });
    const statuses = await signInsWithForgedAddresses(app, 55);
    expect(statuses.slice(0, 50)).toEqual(Array(50).fill(400));
    expect(statuses.slice(50)).toEqual(Array(5).fill(429));
  });

  it('with TRUST_PROXY=loopback the header from a loopback proxy is honoured, from anyone else it is not', async () => {
    // 2 attempts per account, 20 per IP.
    const app = await createTestApp({
      env: { ...PRODUCTION, TRUST_PROXY: 'loopback', LOGIN_MAX_ATTEMPTS: '2' },
    });
    // Through the proxy: each request is its own client address, none reaches the per-IP limit.
    expect(await signInsWithForgedAddresses(app, 25)).toEqual(Array(25).fill(400));
    // Straight from an address that is not a configured proxy: the header counts for nothing.
    const direct = await signInsWithForgedAddresses(app, 25, '203.0.113.9');
    expect(direct.slice(0, 20)).toEqual(Array(20).fill(400));
    expect(direct.slice(20)).toEqual(Array(5).fill(429));
  });

  it('with a hop count, the address the nearest proxy saw is the client', async () => {
    const app = await createTestApp({ env: { ...PRODUCTION, TRUST_PROXY: '1', LOGIN_MAX_ATTEMPTS: '2' } });
    // The client forges a left-most entry; the proxy appends the address it saw (always the same).
    const b = new Browser(app);
    const statuses: number[] = [];
    for (let i = 0; i < 22; i++)
      statuses.push(
        (
          await b.request({
            method: 'POST',
            url: '/v1/api/auth',
            payload: { email: `hop-${i}@example.test`, password: 'wrong-password' },
            headers: { 'x-forwarded-for': `198.51.100.${i + 1}, 192.0.2.50` },
            remoteAddress: '10.0.0.2',
          })
        ).statusCode,
      );
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(400));
    expect(statuses.slice(20)).toEqual([429, 429]);
  });
});
