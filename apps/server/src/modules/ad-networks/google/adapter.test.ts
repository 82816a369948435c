import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGoogleAds } from '../../../../test/fakes/google-ads.ts';
import type { FakeGoogleAds } from '../../../../test/fakes/google-ads.ts';
import { VendorAuthError, VendorUnreachableError } from '../../integrations/vendor-http.ts';
import type { AdapterContext, Credentials } from '../../integrations/port.ts';
import { hashEmail } from '../hashing.ts';
import { createGoogleAdsAdapter, retryDelayMs } from './adapter.ts';
import { hashEmailForGoogle, normaliseEmailForGoogle } from './normalise.ts';

let fake: FakeGoogleAds;
const waits: number[] = [];
beforeAll(async () => {
  fake = await startFakeGoogleAds();
});
afterAll(() => fake.close());

const adapter = (developerToken: string | null = fake.developerToken) =>
  createGoogleAdsAdapter(
    {
      apiUrl: fake.url,
      apiVersion: fake.version,
      dataManagerUrl: fake.url,
      authUrl: fake.url,
      tokenUrl: fake.url,
      appId: fake.clientId,
      appSecret: fake.clientSecret,
      developerToken,
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
  const google = adapter();
  const redirectUri = 'http://rally.test/v1/ad-networks/google/callback';
  const consent = new URL(google.authorizeUrl({ state: 'st', redirectUri }));
  expect(consent.pathname).toBe('/o/oauth2/v2/auth');
  expect(consent.searchParams.get('scope')?.split(' ')).toEqual([
    'https://www.googleapis.com/auth/adwords',
    'https://www.googleapis.com/auth/datamanager',
  ]);
  expect(consent.searchParams.get('access_type')).toBe('offline');
  const res = await fetch(consent, { redirect: 'manual' });
  const back = new URL(res.headers.get('location') ?? '');
  expect(back.searchParams.get('state')).toBe('st');
  const creds = await google.exchangeCode({ code: back.searchParams.get('code') ?? '', redirectUri });
  return { google, ctx: context(creds), creds };
}

const hashes = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => hashEmailForGoogle(`person${from + i}@example.com`) ?? '');

describe('Google Ads adapter against the fake', () => {
  it('connects: consent with offline access, code exchange to a refresh token, who, customers, no pages', async () => {
    const { google, ctx, creds } = await connect();
    expect(creds.refreshToken).toMatch(/^1\/\//);
    expect(Date.parse(creds.expiresAt ?? '') - Date.now()).toBeGreaterThan(3500_000);
    expect(await google.whoami(ctx)).toEqual({ name: 'Google Ads login with 3 accounts' });
    // The manager account serves no ads and is left out; a cancelled one is listed as inactive.
    expect(await google.adAccounts(ctx)).toEqual([
      { id: '1234567890', name: 'Acme Search', currency: 'USD', isActive: true },
      { id: '2345678901', name: 'Acme Old', currency: 'EUR', isActive: false },
    ]);
    expect(await google.pages(ctx)).toEqual([]);
  });

  it('with a wrong developer token the Google Ads API refuses, in its words (the fake checks the header)', async () => {
    const { ctx } = await connect();
    const err = await adapter('not-the-token')
      .adAccounts(ctx)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VendorAuthError);
    expect((err as Error).message).toMatch(/bad developer token/);
  });

  it('creates a user list, ingests 10,000 hashed members in one request, removes some, reads the size', async () => {
    const { google, ctx } = await connect();
    const { id } = await google.createAudience(ctx, '1234567890', {
      name: 'Rally · Q1',
      description: 'cohort',
    });
    expect(id).toMatch(/^accountTypes\/GOOGLE_ADS\/accounts\/1234567890\/userLists\/\d+$/);
    expect(await google.readAudience(ctx, id)).toMatchObject({ matchedLowerBound: null, problem: null });
    const before = fake.requests.length;
    expect(await google.addMembers(ctx, id, hashes(10_000))).toEqual({ received: 10_000, invalid: 0 });
    expect(await google.removeMembers(ctx, id, hashes(10))).toEqual({ received: 10, invalid: 0 });
    expect(fake.requests.slice(before).map((r) => [r.path, r.members])).toEqual([
      ['/v1/audienceMembers:ingest', 10_000],
      ['/v1/audienceMembers:remove', 10],
    ]);
    expect((await google.readAudience(ctx, id)).matchedLowerBound).toBe(9_990);
    await google.updateAudience(ctx, id, { name: 'Rally · Q1 (renamed)', description: 'cohort' });
    expect(fake.lists.get(id)?.displayName).toBe('Rally · Q1 (renamed)');
  });

  it('the fake refuses an address in clear and a batch over 10,000, as the Data Manager API documents', async () => {
    const { google, ctx } = await connect();
    const { id } = await google.createAudience(ctx, '1234567890', { name: 'strict', description: '' });
    await expect(google.addMembers(ctx, id, ['ana@example.com'])).rejects.toThrow(/SHA-256/);
    await expect(google.addMembers(ctx, id, hashes(10_001))).rejects.toThrow(/At most 10000/);
  });

  it('waits out a 429 RESOURCE_EXHAUSTED for the RetryInfo delay, then goes on', async () => {
    const { google, ctx } = await connect();
    const { id } = await google.createAudience(ctx, '1234567890', { name: 'throttled', description: '' });
    waits.length = 0;
    fake.throttleNext(1, 45);
    expect(await google.addMembers(ctx, id, hashes(5))).toEqual({ received: 5, invalid: 0 });
    expect(waits).toEqual([45_000]);
    expect(fake.lists.get(id)?.members.size).toBe(5);
  });

  it('an access token that expires mid-job is refreshed once and the job goes on', async () => {
    const { google, ctx, creds } = await connect();
    const { id } = await google.createAudience(ctx, '1234567890', { name: 'refresh', description: '' });
    await google.addMembers(ctx, id, hashes(100));
    fake.expireAccessTokens();
    await google.addMembers(ctx, id, hashes(100, 100));
    expect(ctx.saved).toHaveLength(1);
    expect(ctx.credentials()).toMatchObject({ refreshToken: creds.refreshToken });
    const now = ctx.credentials();
    expect(now.kind === 'oauth' ? now.accessToken : null).not.toBe(creds.accessToken);
    expect(fake.lists.get(id)?.members.size).toBe(200);
  });

  it('a revoked grant ends in VendorAuthError carrying Google’s words; revoke at disconnect works', async () => {
    const { google, ctx } = await connect();
    await google.revoke(ctx);
    fake.expireAccessTokens();
    const err = await google.whoami(ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VendorAuthError);
    expect((err as Error).message).toBe(
      'Google refused Rally’s access: Token has been expired or revoked. Connect Google Ads again.',
    );
    await expect(google.refreshIfDue(ctx, 7 * 24 * 3600_000)).rejects.toBeInstanceOf(VendorAuthError);
  });

  it('a token host that cannot be reached while refreshing is an outage, not a refusal', async () => {
    const { ctx } = await connect();
    const offline = createGoogleAdsAdapter(
      {
        apiUrl: fake.url,
        apiVersion: fake.version,
        dataManagerUrl: fake.url,
        authUrl: fake.url,
        tokenUrl: 'http://127.0.0.1:1',
        appId: fake.clientId,
        appSecret: fake.clientSecret,
        developerToken: fake.developerToken,
      },
      { retry: { sleep: async () => undefined, baseDelayMs: 1, retries: 1 } },
    );
    const err = await offline.refreshIfDue(ctx, 7 * 24 * 3600_000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VendorUnreachableError);
  });

  it('reads the wait from RetryInfo and from a GoogleAdsFailure’s QuotaErrorDetails', () => {
    expect(retryDelayMs({ error: { details: [{ retryDelay: '30s' }] } })).toBe(30_000);
    expect(
      retryDelayMs({
        error: { details: [{ errors: [{ details: { quotaErrorDetails: { retryDelay: '1.5s' } } }] }] },
      }),
    ).toBe(1_500);
    expect(retryDelayMs({ error: {} })).toBeNull();
  });
});

describe('Google’s e-mail normalisation (Data Manager API › Format user data)', () => {
  const sha = (s: string) => createHash('sha256').update(s).digest('hex');

  it('matches Google’s published examples', () => {
    // "cloudy.sanfrancisco+shopping@gmail.com → cloudysanfrancisco@gmail.com"
    expect(normaliseEmailForGoogle('cloudy.sanfrancisco+shopping@gmail.com')).toBe(
      'cloudysanfrancisco@gmail.com',
    );
    // "user.name+NYC@Example.com → user.name+nyc@example.com": other domains keep dots and plus.
    expect(normaliseEmailForGoogle('user.name+NYC@Example.com')).toBe('user.name+nyc@example.com');
    expect(hashEmailForGoogle('cloudy.sanfrancisco+shopping@gmail.com')).toBe(
      sha('cloudysanfrancisco@gmail.com'),
    );
    expect(hashEmailForGoogle('cloudy.sanfrancisco+shopping@gmail.com')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('googlemail.com too; leading, trailing and inner white space go; not an address gives nothing', () => {
    expect(normaliseEmailForGoogle(' Jo.Ann+x@GoogleMail.com ')).toBe('joann@googlemail.com');
    expect(normaliseEmailForGoogle('ana @ example.com')).toBe('ana@example.com');
    for (const bad of [null, '', 'no-at', '@example.com', 'a@', 'a@b@c', '+tag@gmail.com'])
      expect(normaliseEmailForGoogle(bad)).toBeNull();
  });

  it('differs from Meta’s hash only where Google’s Gmail rule applies', () => {
    expect(hashEmailForGoogle('Ana@Example.com')).toBe(hashEmail('Ana@Example.com'));
    expect(hashEmailForGoogle('a.na@gmail.com')).not.toBe(hashEmail('a.na@gmail.com'));
    expect(hashEmailForGoogle('a.na@gmail.com')).toBe(hashEmail('ana@gmail.com'));
  });
});
