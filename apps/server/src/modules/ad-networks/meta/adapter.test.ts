import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeMeta } from '../../../../test/fakes/meta.ts';
import type { FakeMeta } from '../../../../test/fakes/meta.ts';
import { VendorAuthError } from '../../integrations/vendor-http.ts';
import { hashEmail } from '../hashing.ts';
import type { AdapterContext, Credentials } from '../../integrations/port.ts';
import { bucWaitMs, createMetaAdapter } from './adapter.ts';

let fake: FakeMeta;
const waits: number[] = [];
beforeAll(async () => {
  fake = await startFakeMeta();
});
afterAll(() => fake.close());

const adapter = () =>
  createMetaAdapter(
    {
      graphUrl: fake.url,
      authUrl: fake.url,
      apiVersion: fake.version,
      appId: fake.appId,
      appSecret: fake.appSecret,
    },
    { retry: { sleep: async (ms) => void waits.push(ms), baseDelayMs: 1 } },
  );

function context(creds: Credentials): AdapterContext & { saved: Credentials[] } {
  let current = creds;
  const saved: Credentials[] = [];
  return {
    saved,
    credentials: () => current,
    saveCredentials: async (next) => {
      current = next;
      saved.push(next);
    },
  };
}

async function connect() {
  const meta = adapter();
  const redirectUri = 'http://rally.test/v1/ad-networks/meta/callback';
  const consent = new URL(meta.authorizeUrl({ state: 'st', redirectUri }));
  expect(consent.pathname).toBe(`/${fake.version}/dialog/oauth`);
  expect(consent.searchParams.get('scope')).toContain('ads_management');
  const res = await fetch(consent, { redirect: 'manual' });
  const back = new URL(res.headers.get('location') ?? '');
  expect(back.searchParams.get('state')).toBe('st');
  const creds = await meta.exchangeCode({ code: back.searchParams.get('code') ?? '', redirectUri });
  return { meta, ctx: context(creds), creds };
}

const hashes = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => hashEmail(`person${from + i}@example.com`) ?? '');

describe('Meta adapter against the fake', () => {
  it('connects: consent, code exchange to a long-lived token, who, ad accounts and pages', async () => {
    const { meta, ctx, creds } = await connect();
    expect(creds.refreshToken).toBeNull();
    // A long-lived token: about 60 days (Access Token Guide).
    expect(Date.parse(creds.expiresAt ?? '') - Date.now()).toBeGreaterThan(59 * 24 * 3600_000);
    expect(await meta.whoami(ctx)).toEqual({ name: 'Ana Marketer' });
    const accounts = await meta.adAccounts(ctx);
    expect(accounts.map((a) => [a.id, a.isActive])).toEqual([
      ['act_1001', true],
      ['act_1002', false],
    ]);
    expect(await meta.pages(ctx)).toEqual([{ id: '2001', name: 'Acme on Facebook' }]);
  });

  it('creates an audience, pushes 10,000 hashed members in one request, removes some, reads the size', async () => {
    const { meta, ctx } = await connect();
    const { id } = await meta.createAudience(ctx, 'act_1001', { name: 'Rally · Q1', description: 'cohort' });
    const before = fake.requests.length;
    expect(await meta.addMembers(ctx, id, hashes(10_000))).toEqual({ received: 10_000, invalid: 0 });
    expect(await meta.removeMembers(ctx, id, hashes(10, 0))).toEqual({ received: 10, invalid: 0 });
    const sent = fake.requests.slice(before);
    expect(sent.map((r) => [r.method, r.members])).toEqual([
      ['POST', 10_000],
      ['DELETE', 10],
    ]);
    const read = await meta.readAudience(ctx, id);
    expect(read.matchedLowerBound).toBe(9_990);
    expect(read.problem).toBeNull();
    await meta.updateAudience(ctx, id, { name: 'Rally · Q1 (renamed)', description: 'cohort' });
    expect(fake.audiences.get(id)?.name).toBe('Rally · Q1 (renamed)');
  });

  it('the fake refuses an address in clear and a batch over 10,000, as the documentation says', async () => {
    const { meta, ctx } = await connect();
    const { id } = await meta.createAudience(ctx, 'act_1001', { name: 'strict', description: '' });
    await expect(meta.addMembers(ctx, id, ['ana@example.com'])).rejects.toThrow(/SHA-256/);
    await expect(meta.addMembers(ctx, id, hashes(10_001))).rejects.toThrow(/10000/);
  });

  it('waits out a rate-limit reply for the time X-Business-Use-Case-Usage names, then goes on', async () => {
    const { meta, ctx } = await connect();
    const { id } = await meta.createAudience(ctx, 'act_1001', { name: 'throttled', description: '' });
    waits.length = 0;
    fake.throttleNext(1, 2);
    expect(await meta.addMembers(ctx, id, hashes(5))).toEqual({ received: 5, invalid: 0 });
    expect(waits).toEqual([120_000]);
    expect(fake.audiences.get(id)?.members.size).toBe(5);
  });

  it('a Graph host that cannot be reached while a token is exchanged is an outage, not a refusal', async () => {
    const { creds } = await connect();
    // A port nothing listens on: the connection is refused.
    const closed = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const port = (srv.address() as AddressInfo).port;
        srv.close(() => resolve(port));
      });
    });
    const offline = createMetaAdapter(
      {
        graphUrl: `http://127.0.0.1:${closed}`,
        authUrl: fake.url,
        apiVersion: fake.version,
        appId: fake.appId,
        appSecret: fake.appSecret,
      },
      { retry: { sleep: async () => {}, baseDelayMs: 1 } },
    );
    const ctx = context({ ...creds, expiresAt: new Date(Date.now() + 3600_000).toISOString() });
    const err = await offline.refreshIfDue(ctx, 7 * 24 * 3600_000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(VendorAuthError);
    expect(ctx.saved).toHaveLength(0);
  });

  it('a revoked token ends in VendorAuthError carrying Meta’s reason; an expiring token is exchanged', async () => {
    const { meta, ctx } = await connect();
    ctx.credentials = () => ({
      kind: 'oauth',
      accessToken: fake.mintToken(3600),
      refreshToken: null,
      expiresAt: new Date(Date.now() + 3600_000).toISOString(),
    });
    const renewed = await meta.refreshIfDue(ctx, 7 * 24 * 3600_000);
    expect(renewed?.accessToken).toMatch(/^EAA/);
    expect(ctx.saved).toHaveLength(1);
    expect(await meta.refreshIfDue(context(renewed!), 7 * 24 * 3600_000)).toBeNull();

    fake.revokeAll();
    const err = await meta.whoami(context(renewed!)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VendorAuthError);
    expect((err as Error).message).toMatch(/not authorized application/);
  });

  it('reads the longest wait from X-Business-Use-Case-Usage', () => {
    expect(bucWaitMs(null)).toBeNull();
    expect(bucWaitMs('{"1":[{"type":"ads_management","estimated_time_to_regain_access":0}]}')).toBeNull();
    expect(
      bucWaitMs(
        '{"1":[{"type":"custom_audience","estimated_time_to_regain_access":3}],"2":[{"estimated_time_to_regain_access":5}]}',
      ),
    ).toBe(300_000);
    expect(bucWaitMs('not json')).toBeNull();
  });
});
