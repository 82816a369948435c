import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { adAudiences } from '../../../db/schema/index.ts';
import { createTestApp, waitFor } from '../../../../test/helpers.ts';
import { makeClient, signedIn } from '../../../../test/http.ts';
import type { Browser } from '../../../../test/http.ts';
import { makeCohort } from '../../../../test/ad-network-kit.ts';
import { startFakeGoogleAds } from '../../../../test/fakes/google-ads.ts';
import type { FakeGoogleAds } from '../../../../test/fakes/google-ads.ts';

/** Settings › Ad networks and Run on networks for Google Ads, through the routes and the fake. */
let fake: FakeGoogleAds;
let app: FastifyInstance;
let mine: string;
let foreign: string;
let owner: Browser;
let manager: Browser;
let sdr: Browser;
let stranger: Browser;

beforeAll(async () => {
  fake = await startFakeGoogleAds();
  app = await createTestApp({
    env: fake.env(),
    adapters: { retry: { sleep: async () => undefined, baseDelayMs: 1 } },
  });
  mine = await makeClient(app, 'Mine');
  foreign = await makeClient(app, 'Foreign');
  owner = (await signedIn(app, { [mine]: 'purple_owner' })).browser;
  manager = (await signedIn(app, { [mine]: 'green_manager' })).browser;
  sdr = (await signedIn(app, { [mine]: 'yellow_sdr' })).browser;
  stranger = (await signedIn(app, { [foreign]: 'purple_owner' })).browser;
});
afterAll(() => fake.close());

const google = async (b: Browser) =>
  ((await b.get('/v1/ad-networks')).json() as { network: string }[]).find((n) => n.network === 'google') as
    Record<string, unknown> | undefined;

describe('Settings › Ad networks: Google Ads', () => {
  it('is listed, and not offered without its three variables (decision 0023)', async () => {
    expect(await google(owner)).toMatchObject({
      label: 'Google Ads (Customer Match)',
      available: true,
      minimum_audience: 100,
      connection: null,
    });
    const config = app.config.vendors.google;
    const token = config.developerToken;
    config.developerToken = null;
    try {
      expect(await google(owner)).toMatchObject({ available: false });
      const res = await owner.get('/v1/ad-networks/google/redirect');
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe(
        'Google Ads is not available on this installation — ask your administrator.',
      );
    } finally {
      config.developerToken = token;
    }
  });

  it('refuses connecting to an SDR and a manager, and to another client’s owner', async () => {
    expect((await sdr.get('/v1/ad-networks/google/redirect')).statusCode).toBe(403);
    expect((await manager.get('/v1/ad-networks/google/redirect')).statusCode).toBe(403);
    expect((await stranger.get('/v1/ad-networks/google/redirect', { clientId: mine })).statusCode).toBe(403);
  });

  it('connects through Google’s consent, lists the customers (no pages) and sets one (bad ids named)', async () => {
    const start = await owner.get('/v1/ad-networks/google/redirect');
    expect(start.statusCode).toBe(200);
    const consentUrl = new URL(start.json<{ redirect_url: string }>().redirect_url);
    expect(consentUrl.searchParams.get('redirect_uri')).toMatch(/\/v1\/ad-networks\/google\/callback$/);
    const consent = await fetch(consentUrl, { redirect: 'manual' });
    const callback = new URL(consent.headers.get('location') ?? '');
    const done = await owner.get(`${callback.pathname}${callback.search}`, { clientId: null });
    expect(done.statusCode).toBe(302);
    expect(new URL(done.headers.location as string, 'http://x').searchParams.get('connected')).toBe('google');
    expect(await google(owner)).toMatchObject({
      connection: { account_name: 'Google Ads login with 3 accounts', is_active: true, ad_account_id: null },
    });
    expect((await google(stranger))?.connection).toBeNull();

    const accounts = await sdr.get('/v1/ad-networks/google/accounts');
    expect(accounts.statusCode).toBe(200);
    expect(accounts.json()).toEqual({
      ad_accounts: [
        { id: '1234567890', name: 'Acme Search', currency: 'USD', is_active: true },
        { id: '2345678901', name: 'Acme Old', currency: 'EUR', is_active: false },
      ],
      pages: [],
    });
    expect((await stranger.get('/v1/ad-networks/google/accounts')).statusCode).toBe(409);

    for (const body of [
      { ad_account_id: '123-456-7890' },
      { ad_account_id: '5555555555' },
      { ad_account_id: '2345678901' },
      { ad_account_id: '9990001112' },
    ]) {
      const res = await owner.put('/v1/ad-networks/google', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.body).toContain('body.ad_account_id');
    }
    expect((await sdr.put('/v1/ad-networks/google', { ad_account_id: '1234567890' })).statusCode).toBe(403);
    expect((await stranger.put('/v1/ad-networks/google', { ad_account_id: '1234567890' })).statusCode).toBe(
      409,
    );
    const ok = await owner.put('/v1/ad-networks/google', { ad_account_id: '1234567890' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().message).toBe('Google Ads ad account set to Acme Search.');
    expect(await google(owner)).toMatchObject({
      connection: { ad_account_id: '1234567890', ad_account_name: 'Acme Search', page_id: null },
    });
  });

  it('runs a cohort on Google Ads: a Customer Match list with the members’ hashes; SDRs and strangers cannot', async () => {
    const cohort = await makeCohort(app, mine, 'Google buyers', 300, 600_000);
    const body = { network: 'google', source_kind: 'cohort', source_id: cohort.cohortId };
    expect((await sdr.post('/v1/ad-networks/audiences', body)).statusCode).toBe(403);
    expect((await stranger.post('/v1/ad-networks/audiences', body)).statusCode).toBeGreaterThanOrEqual(404);
    const bad = await manager.post('/v1/ad-networks/audiences', { ...body, network: 'myspace' });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('body.network');
    const res = await manager.post('/v1/ad-networks/audiences', body);
    expect(res.statusCode).toBe(201);
    const id = res.json<{ id: string }>().id;
    const done = await waitFor(async () => {
      const [a] = await app.db.select().from(adAudiences).where(eq(adAudiences.id, id));
      return a && ['ready', 'held', 'failed'].includes(a.state) ? a : null;
    }, 60_000);
    expect(done).toMatchObject({ state: 'ready', memberCount: 300, matchedLower: 300 });
    const list = fake.lists.get(done.networkAudienceId!)!;
    expect(list.displayName).toBe('Rally · Google buyers');
    expect([...list.members].every((h) => /^[0-9a-f]{64}$/.test(h))).toBe(true);
    const listed = await stranger.get('/v1/ad-networks/audiences');
    expect(listed.json()).toEqual([]);
  });

  it('disconnecting revokes the grant at Google and forgets the connection', async () => {
    expect((await sdr.delete('/v1/ad-networks/google')).statusCode).toBe(403);
    expect((await stranger.delete('/v1/ad-networks/google')).statusCode).toBe(404);
    const before = fake.requests.length;
    const res = await owner.delete('/v1/ad-networks/google');
    expect(res.statusCode).toBe(200);
    expect(fake.requests.slice(before).map((r) => r.path)).toContain('/revoke');
    expect((await google(owner))?.connection).toBeNull();
  });
});
