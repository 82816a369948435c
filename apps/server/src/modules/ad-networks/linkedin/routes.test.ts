import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { adAudiences } from '../../../db/schema/index.ts';
import { createTestApp, waitFor } from '../../../../test/helpers.ts';
import { makeClient, signedIn } from '../../../../test/http.ts';
import type { Browser } from '../../../../test/http.ts';
import { makeCohort } from '../../../../test/ad-network-kit.ts';
import { startFakeLinkedIn } from '../../../../test/fakes/linkedin.ts';
import type { FakeLinkedIn } from '../../../../test/fakes/linkedin.ts';

/** Settings › Ad networks and "Run on networks" with LinkedIn, through the routes and the queue. */
let fake: FakeLinkedIn;
let app: FastifyInstance;
let mine: string;
let foreign: string;
let owner: Browser;
let manager: Browser;
let sdr: Browser;
let stranger: Browser;

beforeAll(async () => {
  fake = await startFakeLinkedIn({ settleMs: 0 });
  app = await createTestApp({
    env: {
      LINKEDIN_CLIENT_ID: fake.clientId,
      LINKEDIN_CLIENT_SECRET: fake.clientSecret,
      LINKEDIN_API_URL: fake.url,
      LINKEDIN_AUTH_URL: fake.url,
      LINKEDIN_API_VERSION: fake.version,
    },
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

const linkedin = async (b: Browser) =>
  (await b.get('/v1/ad-networks')).json<{ network: string }[]>().find((n) => n.network === 'linkedin') as
    Record<string, unknown> | undefined;

async function connect(browser: Browser): Promise<URL> {
  const start = await browser.get('/v1/ad-networks/linkedin/redirect');
  expect(start.statusCode).toBe(200);
  const consent = await fetch(start.json<{ redirect_url: string }>().redirect_url, { redirect: 'manual' });
  const callback = new URL(consent.headers.get('location') ?? '');
  expect(callback.pathname).toBe('/v1/ad-networks/linkedin/callback');
  const done = await browser.get(`${callback.pathname}${callback.search}`, { clientId: null });
  expect(done.statusCode).toBe(302);
  return new URL(done.headers.location as string, 'http://x');
}

const settled = (id: string) =>
  waitFor(async () => {
    const [a] = await app.db.select().from(adAudiences).where(eq(adAudiences.id, id));
    return a && ['ready', 'held', 'failed'].includes(a.state) ? a : null;
  }, 60_000);

describe('Settings › Ad networks: LinkedIn', () => {
  it('is offered only when LINKEDIN_CLIENT_ID and LINKEDIN_CLIENT_SECRET are set (decision 0023)', async () => {
    const li = app.config.vendors.linkedin;
    const id = li.clientId;
    li.clientId = null;
    try {
      expect(await linkedin(owner)).toMatchObject({ label: 'LinkedIn', available: false, connection: null });
      const res = await owner.get('/v1/ad-networks/linkedin/redirect');
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe(
        'LinkedIn is not available on this installation — ask your administrator.',
      );
      expect((await app.inject('/v1/api/config')).json().connect.linkedin).toBe(false);
    } finally {
      li.clientId = id;
    }
    expect((await app.inject('/v1/api/config')).json().connect.linkedin).toBe(true);
    expect(await linkedin(owner)).toMatchObject({ available: true, minimum_audience: 300 });
  });

  it('refuses connecting to an SDR, a manager and a foreign client', async () => {
    expect((await sdr.get('/v1/ad-networks/linkedin/redirect')).statusCode).toBe(403);
    expect((await manager.get('/v1/ad-networks/linkedin/redirect')).statusCode).toBe(403);
    expect((await stranger.get('/v1/ad-networks/linkedin/redirect', { clientId: mine })).statusCode).toBe(
      403,
    );
  });

  it('connects, lists ad accounts and admin pages, and sets them (bad ids named by field)', async () => {
    const back = await connect(owner);
    expect(back.searchParams.get('connected')).toBe('linkedin');
    expect(await linkedin(owner)).toMatchObject({
      connection: { account_name: 'Lena Marketer', is_active: true, ad_account_id: null },
    });
    expect((await linkedin(stranger))?.connection).toBeNull();

    const accounts = await sdr.get('/v1/ad-networks/linkedin/accounts');
    expect(accounts.statusCode).toBe(200);
    expect(accounts.json()).toEqual({
      ad_accounts: [
        { id: '5001', name: 'Acme LinkedIn Ads', currency: 'USD', is_active: true },
        { id: '5002', name: 'Acme Agency View', currency: 'USD', is_active: false },
        { id: '5003', name: 'Acme Old Account', currency: 'EUR', is_active: false },
      ],
      pages: [{ id: '7001', name: 'Acme Corp' }],
    });
    expect((await stranger.get('/v1/ad-networks/linkedin/accounts')).statusCode).toBe(409);

    for (const [body, field] of [
      [{ ad_account_id: 'urn:li:sponsoredAccount:5001' }, 'body.ad_account_id'],
      [{ ad_account_id: '9999' }, 'body.ad_account_id'],
      // A VIEWER role cannot hold audiences ("DMP Segment Users").
      [{ ad_account_id: '5002' }, 'body.ad_account_id'],
      // The member is an ANALYST of 7002, not an administrator.
      [{ ad_account_id: '5001', page_id: '7002' }, 'body.page_id'],
    ] as const) {
      const res = await owner.put('/v1/ad-networks/linkedin', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.body).toContain(field);
    }
    expect((await sdr.put('/v1/ad-networks/linkedin', { ad_account_id: '5001' })).statusCode).toBe(403);
    expect((await stranger.put('/v1/ad-networks/linkedin', { ad_account_id: '5001' })).statusCode).toBe(409);
    const ok = await owner.put('/v1/ad-networks/linkedin', { ad_account_id: '5001', page_id: '7001' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().message).toBe('LinkedIn ad account set to Acme LinkedIn Ads.');
    expect((await linkedin(owner))?.connection).toMatchObject({
      ad_account_id: '5001',
      ad_account_name: 'Acme LinkedIn Ads',
      page_id: '7001',
      page_name: 'Acme Corp',
    });
  });

  it('runs a cohort on LinkedIn as a DMP segment; SDRs and other clients cannot', async () => {
    const cohort = await makeCohort(app, mine, 'Q2 buyers', 400, 600_000);
    const body = { network: 'linkedin', source_kind: 'cohort', source_id: cohort.cohortId };
    expect((await sdr.post('/v1/ad-networks/audiences', body)).statusCode).toBe(403);
    expect((await stranger.post('/v1/ad-networks/audiences', body)).statusCode).toBe(404);
    const badNetwork = await manager.post('/v1/ad-networks/audiences', { ...body, network: 'linkdin' });
    expect(badNetwork.statusCode).toBe(422);
    expect(badNetwork.body).toContain('body.network');
    const res = await manager.post('/v1/ad-networks/audiences', body);
    expect(res.statusCode).toBe(201);
    const done = await settled(res.json().id);
    expect(done).toMatchObject({ state: 'ready', memberCount: 400, matchedLower: 400, adAccountId: '5001' });
    expect(fake.segments.get(done.networkAudienceId!)?.members.size).toBe(400);
    const listed = await sdr.get(`/v1/ad-networks/audiences?source_kind=cohort&source_id=${cohort.cohortId}`);
    expect(listed.json()).toEqual([
      expect.objectContaining({
        network: 'linkedin',
        state: 'ready',
        matched_lower: 400,
        minimum_audience: 300,
      }),
    ]);
    expect((await stranger.post(`/v1/ad-networks/audiences/${done.id}/push`)).statusCode).toBe(404);
  });

  it('a revoked token shows inactive with LinkedIn’s words; disconnecting revokes at LinkedIn', async () => {
    const [audience] = await app.db.select().from(adAudiences).where(eq(adAudiences.clientId, mine));
    fake.revokeAll();
    await owner.post(`/v1/ad-networks/audiences/${audience!.id}/push`);
    expect((await settled(audience!.id)).state).toBe('failed');
    const connection = (await linkedin(owner))?.connection as Record<string, unknown>;
    expect(connection).toMatchObject({ is_active: false });
    expect(connection.inactive_reason).toMatch(/revoked by the user\. Connect LinkedIn again/);

    await connect(owner);
    expect((await linkedin(owner))?.connection).toMatchObject({ is_active: true });
    expect((await sdr.delete('/v1/ad-networks/linkedin')).statusCode).toBe(403);
    expect((await stranger.delete('/v1/ad-networks/linkedin')).statusCode).toBe(404);
    const before = fake.requests.length;
    expect((await owner.delete('/v1/ad-networks/linkedin')).statusCode).toBe(200);
    expect(fake.requests.slice(before)).toContainEqual({
      method: 'POST',
      path: '/oauth/v2/revoke',
      members: 0,
    });
    expect((await linkedin(owner))?.connection).toBeNull();
  });
});
