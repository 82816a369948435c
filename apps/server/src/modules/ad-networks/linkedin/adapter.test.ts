import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLinkedIn } from '../../../../test/fakes/linkedin.ts';
import type { FakeLinkedIn } from '../../../../test/fakes/linkedin.ts';
import { linkedInConfig } from '../../../../test/linkedin-kit.ts';
import { VendorAuthError } from '../../integrations/vendor-http.ts';
import type { AdapterContext, Credentials } from '../../integrations/port.ts';
import { hashEmail } from '../hashing.ts';
import { createLinkedInAdapter, DMP_SETTLE_MS, LINKEDIN_SCOPES } from './adapter.ts';

let fake: FakeLinkedIn;
const waits: number[] = [];
beforeAll(async () => {
  // Segments take users at once here; the adapter's 5 s wait is checked through `waits`.
  fake = await startFakeLinkedIn({ settleMs: 0, maxPageSize: 2 });
});
afterAll(() => fake.close());

const config = (over: Partial<Parameters<typeof createLinkedInAdapter>[0]> = {}) =>
  linkedInConfig(fake, over);
const adapter = (over: Partial<Parameters<typeof createLinkedInAdapter>[0]> = {}) =>
  createLinkedInAdapter(config(over), {
    retry: { sleep: async (ms) => void waits.push(ms), baseDelayMs: 1 },
  });

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
  const li = adapter();
  const redirectUri = 'http://rally.test/v1/ad-networks/linkedin/callback';
  const consent = new URL(li.authorizeUrl({ state: 'st', redirectUri }));
  expect(consent.pathname).toBe('/oauth/v2/authorization');
  expect(consent.searchParams.get('scope')).toBe(LINKEDIN_SCOPES.join(' '));
  const res = await fetch(consent, { redirect: 'manual' });
  const back = new URL(res.headers.get('location') ?? '');
  expect(back.searchParams.get('state')).toBe('st');
  const creds = await li.exchangeCode({ code: back.searchParams.get('code') ?? '', redirectUri });
  return { li, ctx: context(creds), creds };
}

const hashes = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => hashEmail(`person${from + i}@example.com`) ?? '');

describe('LinkedIn adapter against the fake', () => {
  it('connects: consent, code exchange with a refresh token, who, ad accounts and admin pages across pages', async () => {
    const { li, ctx, creds } = await connect();
    expect(creds.refreshToken).toMatch(/^AQX/);
    // Access tokens last 60 days ("Programmatic Refresh Tokens").
    expect(Date.parse(creds.expiresAt ?? '') - Date.now()).toBeGreaterThan(59 * 24 * 3600_000);
    expect(await li.whoami(ctx)).toEqual({ name: 'Lena Marketer' });
    // Three ad accounts over two pages of two (the fake's page cap): a VIEWER role and a cancelled
    // account cannot hold audiences.
    expect((await li.adAccounts(ctx)).map((a) => [a.id, a.name, a.isActive])).toEqual([
      ['5001', 'Acme LinkedIn Ads', true],
      ['5002', 'Acme Agency View', false],
      ['5003', 'Acme Old Account', false],
    ]);
    // Only the organisation the member administers.
    expect(await li.pages(ctx)).toEqual([{ id: '7001', name: 'Acme Corp' }]);
    const finders = fake.requests.filter((r) => r.path === '/rest/adAccountUsers');
    expect(finders.length).toBeGreaterThanOrEqual(2);
  });

  it('creates a segment, waits 5 s, pushes 10,000 hashed users in two batches, removes some, reads the size', async () => {
    const { li, ctx } = await connect();
    waits.length = 0;
    const { id } = await li.createAudience(ctx, '5001', { name: 'Rally · Q1', description: 'cohort' });
    expect(waits).toEqual([DMP_SETTLE_MS]);
    expect(fake.segments.get(id)?.account).toBe('urn:li:sponsoredAccount:5001');
    const before = fake.requests.length;
    const all = hashes(10_000);
    for (let i = 0; i < all.length; i += li.batchLimit)
      expect(await li.addMembers(ctx, id, all.slice(i, i + li.batchLimit))).toEqual({
        received: 5_000,
        invalid: 0,
      });
    expect(await li.removeMembers(ctx, id, hashes(10))).toEqual({ received: 10, invalid: 0 });
    expect(fake.requests.slice(before).map((r) => r.members)).toEqual([5_000, 5_000, 10]);
    const read = await li.readAudience(ctx, id);
    expect(read).toMatchObject({ id, matchedLowerBound: 9_990, problem: null });
    await li.updateAudience(ctx, id, { name: 'Rally · Q1 (renamed)', description: 'cohort' });
    expect(fake.segments.get(id)?.name).toBe('Rally · Q1 (renamed)');
  });

  it('the fake refuses what LinkedIn documents as wrong: clear addresses, big batches, viewer accounts, no version', async () => {
    const { li, ctx } = await connect();
    const { id } = await li.createAudience(ctx, '5001', { name: 'strict', description: '' });
    await expect(li.addMembers(ctx, id, ['ana@example.com'])).rejects.toThrow(/SHA-256 hex digest/);
    await expect(li.addMembers(ctx, id, hashes(5_001))).rejects.toThrow(/at most 5000/);
    await expect(li.createAudience(ctx, '5002', { name: 'viewer', description: '' })).rejects.toThrow(
      /LinkedIn answered 403/,
    );
    const sunset = adapter({ apiVersion: '202301' });
    await expect(sunset.whoami(ctx)).rejects.toThrow(/Requested version 202301 is not active/);
    const token = (ctx.credentials() as { accessToken: string }).accessToken;
    const bare = await fetch(`${fake.url}/rest/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(bare.status).toBe(400);
    expect(await bare.json()).toMatchObject({ code: 'VERSION_MISSING' });
    // Rest.li validates bodies: a field outside the DMP segment schema is refused (so Rally sends none).
    const extra = await fetch(`${fake.url}/rest/dmpSegments`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'LinkedIn-Version': fake.version,
        'X-Restli-Protocol-Version': '2.0.0',
      },
      body: JSON.stringify({
        name: 'x',
        description: 'not in the schema',
        account: 'urn:li:sponsoredAccount:5001',
        accessPolicy: 'PRIVATE',
        type: 'USER',
        sourcePlatform: 'RALLY',
        destinations: [{ destination: 'LINKEDIN' }],
      }),
    });
    expect(extra.status).toBe(422);
  });

  it('waits out a 429 mid-job (a minute, no Retry-After documented) and goes on', async () => {
    const { li, ctx } = await connect();
    const { id } = await li.createAudience(ctx, '5001', { name: 'throttled', description: '' });
    waits.length = 0;
    fake.throttleNext(1);
    expect(await li.addMembers(ctx, id, hashes(5))).toEqual({ received: 5, invalid: 0 });
    expect(waits).toEqual([60_000]);
    expect(fake.segments.get(id)?.members.size).toBe(5);
  });

  it('refreshes an expired token mid-job with the refresh token and resends the refused call', async () => {
    const { li, ctx } = await connect();
    const { id } = await li.createAudience(ctx, '5001', { name: 'refresh', description: '' });
    const first = (ctx.credentials() as { refreshToken: string }).refreshToken;
    fake.expireAfterUsersCalls(1);
    await li.addMembers(ctx, id, hashes(3));
    await li.addMembers(ctx, id, hashes(3, 3));
    expect(ctx.saved).toHaveLength(1);
    // The refresh token is kept: a refresh does not extend it.
    expect(ctx.saved[0]).toMatchObject({ kind: 'oauth', refreshToken: first });
    expect(fake.segments.get(id)?.members.size).toBe(6);
  });

  it('refreshes ahead of expiry when due, and says “connect again” when refreshing is refused', async () => {
    const tokens = fake.mintTokens(3600);
    const li = adapter();
    const ctx = context({
      kind: 'oauth',
      ...tokens,
      expiresAt: new Date(Date.now() + 3600_000).toISOString(),
    });
    const next = await li.refreshIfDue(ctx, 7 * 24 * 3600_000);
    expect(next?.accessToken).not.toBe(tokens.accessToken);
    expect(await li.refreshIfDue(context(next!), 7 * 24 * 3600_000)).toBeNull();
    // LinkedIn out of reach is not a refusal: the connection must stay active.
    const unreachable = adapter({ authUrl: 'http://127.0.0.1:1' });
    const down = await unreachable.refreshIfDue(ctx, 61 * 24 * 3600_000).catch((e: unknown) => e);
    expect(down).toBeInstanceOf(Error);
    expect(down).not.toBeInstanceOf(VendorAuthError);
    fake.revokeAll();
    await expect(li.refreshIfDue(ctx, 61 * 24 * 3600_000)).rejects.toBeInstanceOf(VendorAuthError);
  });

  it('a revoked token ends in VendorAuthError carrying LinkedIn’s words', async () => {
    const { li, ctx } = await connect();
    fake.revokeAll();
    const err = await li.whoami(ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VendorAuthError);
    expect((err as Error).message).toBe(
      'LinkedIn refused Rally’s access: The token used in the request has been revoked by the user. Connect LinkedIn again.',
    );
  });

  it('revoke tells LinkedIn to forget the token', async () => {
    const { li, ctx } = await connect();
    await li.revoke(ctx);
    await expect(li.whoami(ctx)).rejects.toBeInstanceOf(VendorAuthError);
  });
});
