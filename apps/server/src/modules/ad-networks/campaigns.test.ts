import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { adAudiences, adCampaigns, adNetworkConnections, content } from '../../db/schema/index.ts';
import { makeClient, signedIn } from '../../../test/http.ts';
import type { Browser } from '../../../test/http.ts';
import { connectMetaDirectly, makeCohort, metaTestApp } from '../../../test/ad-network-kit.ts';
import { makeContent } from '../../../test/engagement.ts';
import { startFakeMeta } from '../../../test/fakes/meta.ts';
import type { FakeMeta } from '../../../test/fakes/meta.ts';

/**
 * Network campaigns (decision 0026): the routes over real HTTP and the sync job run directly (no
 * queue workers), against the strict Meta fake.
 */
let fake: FakeMeta;
let app: FastifyInstance;
let mine: string;
let foreign: string;
let manager: Browser;
let sdr: Browser;
let stranger: Browser;
let audienceId: string;
let contentId: string;
let connectionId: string;
const waits: number[] = [];
const day = 86_400_000;

beforeAll(async () => {
  fake = await startFakeMeta();
  app = await metaTestApp(fake, { sleep: async (ms) => void waits.push(ms) });
  mine = await makeClient(app, 'Mine');
  foreign = await makeClient(app, 'Foreign');
  manager = (await signedIn(app, { [mine]: 'green_manager' })).browser;
  sdr = (await signedIn(app, { [mine]: 'yellow_sdr' })).browser;
  stranger = (await signedIn(app, { [foreign]: 'purple_owner' })).browser;
  const connection = await connectMetaDirectly(app, mine, {
    accessToken: fake.mintToken(60 * 24 * 3600),
    expiresAt: new Date(Date.now() + 60 * 24 * 3600_000).toISOString(),
  });
  connectionId = connection.id;
  await app.db
    .update(adNetworkConnections)
    .set({ pageId: '2001', pageName: 'Acme on Facebook' })
    .where(eq(adNetworkConnections.id, connection.id));
  const { cohortId } = await makeCohort(app, mine, 'Buyers', 150);
  const [audience] = await app.db
    .insert(adAudiences)
    .values({
      clientId: mine,
      connectionId: connection.id,
      sourceKind: 'cohort',
      cohortId,
      name: 'Buyers',
      adAccountId: 'act_1001',
    })
    .returning();
  audienceId = audience!.id;
  await app.adNetworks.push(audienceId);
  contentId = await makeContent(app, mine, {
    landingPageUrl: 'https://acme.test/offer',
    // A tag with its fallback: the audience is many people, so the fallback is what they read.
    title:
      '<span data-id="prospect_first_name" data-fallback="there">Prospect first name</span>, ship twice as fast',
  });
});
afterAll(() => fake.close());

const body = (over: Record<string, unknown> = {}) => ({
  audience_id: audienceId,
  content_id: contentId,
  name: 'Buyers Q1',
  objective: 'traffic',
  budget_kind: 'daily',
  budget_minor: 2_500,
  starts_at: new Date(Date.now() + day).toISOString(),
  ends_at: new Date(Date.now() + 15 * day).toISOString(),
  ...over,
});
const row = async (id: string) => (await app.db.select().from(adCampaigns).where(eq(adCampaigns.id, id)))[0]!;

describe('network campaigns', () => {
  let id: string;

  it('plans a campaign paused at Meta: audience, budget, schedule, page creatives per placement, link with token and UTM', async () => {
    const res = await manager.post('/v1/ad-networks/campaigns', body());
    expect(res.statusCode).toBe(201);
    id = res.json().id;
    expect(res.json()).toMatchObject({ status: 'paused', sync_state: 'queued', budget_minor: 2_500 });
    await app.adCampaigns.sync(id);
    const c = await row(id);
    expect(c).toMatchObject({ syncState: 'synced', effectiveStatus: 'PAUSED', syncError: null });
    const remote = fake.campaigns.campaigns.get(c.networkCampaignId!)!;
    expect(remote).toMatchObject({ status: 'PAUSED', objective: 'OUTCOME_TRAFFIC' });
    const audience = (await app.db.select().from(adAudiences).where(eq(adAudiences.id, audienceId)))[0]!;
    expect(fake.campaigns.adSets.get(c.networkAdSetId!)).toMatchObject({
      dailyBudget: 2_500,
      audienceIds: [audience.networkAudienceId],
    });
    expect(c.ads.map((a) => a.size)).toEqual(['1080x1080', '1200x628']);
    for (const ad of c.ads) {
      const creative = fake.campaigns.creatives.get(fake.campaigns.ads.get(ad.adId!)!.creativeId)!;
      expect(creative.pageId).toBe('2001');
      expect(creative.headline).toBe('There, ship twice as fast');
      const link = new URL(creative.link);
      expect(link.origin + link.pathname).toBe('https://acme.test/offer');
      expect(link.searchParams.get('rly_a')).toBe(c.token);
      expect(link.searchParams.get('utm_source')).toBe('meta');
      expect(link.searchParams.get('utm_content')).toBe(ad.size);
      // The uploaded image is Rally's render at that size.
      expect(fake.campaigns.images.get(creative.imageHash)?.bytes).toBeGreaterThan(1000);
    }
    const read = await manager.get(`/v1/ad-networks/campaigns/${id}`);
    expect(read.json()).toMatchObject({ effective_status: 'PAUSED', audience_name: 'Buyers' });
    expect(read.json().ads[0].preview_url).toMatch(/^\/content\/preview\/\w+\/1080x1080\.png$/);
    const shared = new URL(read.json().link);
    expect(shared.searchParams.get('rly_a')).toBe(c.token);
    expect(shared.searchParams.get('utm_medium')).toBe('paid_social');
    expect(shared.searchParams.has('utm_content')).toBe(false);
  });

  it('launches and pauses from Rally, the status read back; a second run makes nothing twice', async () => {
    const before = fake.campaigns.ads.size;
    expect((await manager.post(`/v1/ad-networks/campaigns/${id}/launch`)).json().status).toBe('active');
    await app.adCampaigns.sync(id);
    let c = await row(id);
    expect(fake.campaigns.campaigns.get(c.networkCampaignId!)?.status).toBe('ACTIVE');
    expect(c.effectiveStatus).toBe('ACTIVE');
    expect(c.ads.every((a) => a.effectiveStatus === 'ACTIVE')).toBe(true);
    expect(fake.campaigns.ads.size).toBe(before);
    await manager.post(`/v1/ad-networks/campaigns/${id}/pause`);
    await app.adCampaigns.sync(id);
    c = await row(id);
    expect(c.effectiveStatus).toBe('PAUSED');
    expect(c.ads.every((a) => a.effectiveStatus === 'CAMPAIGN_PAUSED')).toBe(true);
  });

  it('an ad edited in Rally is replaced on the same Meta ads, even through a throttle', async () => {
    const c0 = await row(id);
    const adsBefore = fake.campaigns.ads.size;
    await app.db
      .update(content)
      .set({ imageText: 'Robots that pick, pack and ship', updatedAt: new Date(Date.now() + 1000) })
      .where(eq(content.id, contentId));
    expect(await app.adCampaigns.requestDue(3600_000)).toBeGreaterThanOrEqual(1);
    waits.length = 0;
    fake.throttleNext(1, 1);
    await app.adCampaigns.sync(id);
    expect(waits).toContain(60_000);
    const c1 = await row(id);
    expect(c1.syncState).toBe('synced');
    expect(fake.campaigns.ads.size).toBe(adsBefore);
    for (const ad of c1.ads) {
      const old = c0.ads.find((a) => a.size === ad.size)!;
      expect(ad.adId).toBe(old.adId);
      expect(ad.creativeId).not.toBe(old.creativeId);
      expect(fake.campaigns.ads.get(ad.adId!)?.creativeId).toBe(ad.creativeId);
    }
  });

  it('refuses bad input naming the field', async () => {
    const low = await manager.post('/v1/ad-networks/campaigns', body({ budget_minor: 50 }));
    expect(low.statusCode).toBe(422);
    expect(low.body).toContain('body.budget_minor');
    const lifetime = await manager.post(
      '/v1/ad-networks/campaigns',
      body({ budget_kind: 'lifetime', ends_at: null }),
    );
    expect(lifetime.statusCode).toBe(422);
    expect(lifetime.body).toContain('body.ends_at');
    const objective = await manager.post('/v1/ad-networks/campaigns', body({ objective: 'LINK_CLICKS' }));
    expect(objective.statusCode).toBe(422);
    expect(objective.body).toContain('body.objective');
    const theirAd = await makeContent(app, foreign);
    const foreignAd = await manager.post('/v1/ad-networks/campaigns', body({ content_id: theirAd }));
    expect(foreignAd.statusCode).toBe(422);
    expect(foreignAd.body).toContain('body.content_id');
    const past = await manager.post(
      '/v1/ad-networks/campaigns',
      body({ starts_at: new Date(Date.now() - 5 * day).toISOString() }),
    );
    expect(past.statusCode).toBe(422);
    expect(past.body).toContain('body.starts_at');
    expect((await manager.get('/v1/ad-networks/campaigns/nope')).statusCode).toBe(422);
  });

  it('an SDR reads but cannot plan, launch or pause; another client sees none of it', async () => {
    expect((await sdr.get(`/v1/ad-networks/campaigns/${id}`)).statusCode).toBe(200);
    expect((await sdr.get('/v1/ad-networks/campaigns')).json()).toHaveLength(1);
    expect((await sdr.post('/v1/ad-networks/campaigns', body())).statusCode).toBe(403);
    expect((await sdr.post(`/v1/ad-networks/campaigns/${id}/launch`)).statusCode).toBe(403);
    expect((await sdr.post(`/v1/ad-networks/campaigns/${id}/pause`)).statusCode).toBe(403);
    expect((await stranger.get(`/v1/ad-networks/campaigns/${id}`)).statusCode).toBe(404);
    expect((await stranger.post(`/v1/ad-networks/campaigns/${id}/launch`)).statusCode).toBe(404);
    expect((await stranger.get('/v1/ad-networks/campaigns')).json()).toEqual([]);
    expect((await stranger.post('/v1/ad-networks/campaigns', body())).statusCode).toBe(404);
    expect((await row(id)).status).toBe('paused');
  });

  it('options name the minimum daily budget, placements and page', async () => {
    const res = await sdr.get('/v1/ad-networks/meta/campaign-options');
    expect(res.json()).toMatchObject({
      minimum_daily_budget_minor: 100,
      page_name: 'Acme on Facebook',
      placements: [{ size: '1080x1080' }, { size: '1200x628' }],
    });
  });

  it('a dead token marks the connection inactive with Meta’s reason and fails the sync in words', async () => {
    fake.revokeAll();
    await manager.post(`/v1/ad-networks/campaigns/${id}/sync`);
    await app.adCampaigns.sync(id);
    const c = await row(id);
    expect(c.syncState).toBe('failed');
    expect(c.syncError).toMatch(/Connect Meta again/);
    const conn = (
      await app.db.select().from(adNetworkConnections).where(eq(adNetworkConnections.id, connectionId))
    )[0]!;
    expect(conn).toMatchObject({ isActive: false });
    expect(conn.inactiveReason).toMatch(/not authorized application/);
    expect((await manager.post(`/v1/ad-networks/campaigns/${id}/launch`)).statusCode).toBe(409);
  });
});
