import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import {
  adAudiences,
  adCampaignStats,
  adCampaigns,
  adNetworkConnections,
  content,
} from '../../../db/schema/index.ts';
import { createTestApp } from '../../../../test/helpers.ts';
import { makeClient, signedIn } from '../../../../test/http.ts';
import type { Browser } from '../../../../test/http.ts';
import { connectGoogleDirectly, makeCohort } from '../../../../test/ad-network-kit.ts';
import { makeContent } from '../../../../test/engagement.ts';
import { startFakeGoogleAds } from '../../../../test/fakes/google-ads.ts';
import type { FakeGoogleAds } from '../../../../test/fakes/google-ads.ts';

/**
 * Issue 39 on Google Ads, through the routes: a Display campaign on the Customer Match list, made
 * paused with budget, schedule and objective from Rally (no page: the ad names the advertiser),
 * launched and paused, replaced when the ad is edited, status read back, and daily results pulled by
 * the same job as Meta and LinkedIn, stored once per day with late corrections.
 */
let fake: FakeGoogleAds;
let app: FastifyInstance;
let mine: string;
let foreign: string;
let manager: Browser;
let sdr: Browser;
let stranger: Browser;
let audienceId: string;
let contentId: string;
let connectionId: string;
let id: string;
const DAY = 86_400_000;
const starts = new Date(Date.now() + DAY);
const dayOf = (n: number) => new Date(starts.getTime() + n * DAY).toISOString().slice(0, 10);

beforeAll(async () => {
  fake = await startFakeGoogleAds({ pageRows: 4 });
  app = await createTestApp({
    workers: false,
    env: fake.env(),
    adapters: { retry: { sleep: async () => undefined, baseDelayMs: 1 } },
  });
  mine = await makeClient(app, 'Mine');
  foreign = await makeClient(app, 'Foreign');
  manager = (await signedIn(app, { [mine]: 'green_manager' })).browser;
  sdr = (await signedIn(app, { [mine]: 'yellow_sdr' })).browser;
  stranger = (await signedIn(app, { [foreign]: 'purple_owner' })).browser;
  const connection = await connectGoogleDirectly(app, mine, {
    ...fake.grant(),
    expiresAt: new Date(Date.now() + 3000_000).toISOString(),
  });
  connectionId = connection.id;
  const { cohortId } = await makeCohort(app, mine, 'Buyers', 150);
  const [audience] = await app.db
    .insert(adAudiences)
    .values({
      clientId: mine,
      connectionId,
      sourceKind: 'cohort',
      cohortId,
      name: 'Buyers',
      adAccountId: '1234567890',
    })
    .returning();
  audienceId = audience!.id;
  await app.adNetworks.push(audienceId);
  contentId = await makeContent(app, mine, { landingPageUrl: 'https://acme.test/offer' });
});
afterAll(() => fake.close());

const body = (over: Record<string, unknown> = {}) => ({
  audience_id: audienceId,
  content_id: contentId,
  name: 'Buyers Q1',
  objective: 'traffic',
  budget_kind: 'daily',
  budget_minor: 2_500,
  starts_at: starts.toISOString(),
  ...over,
});
const row = async (cid: string) =>
  (await app.db.select().from(adCampaigns).where(eq(adCampaigns.id, cid)))[0]!;

describe('network campaigns on Google Ads', () => {
  it('options: $1.00 a day, one responsive display ad with a square, daily budgets, no page', async () => {
    const res = await sdr.get('/v1/ad-networks/google/campaign-options');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      network: 'google',
      minimum_daily_budget_minor: 100,
      currency: null,
      page_name: null,
      placements: [{ size: '1200x628', label: 'Responsive display ad', also: ['1080x1080'] }],
      needs_page: false,
      budget_kinds: ['daily'],
    });
  });

  it('refuses a lifetime budget and one under $1.00 naming the field; SDRs and other clients cannot plan', async () => {
    const lifetime = await manager.post(
      '/v1/ad-networks/campaigns',
      body({ budget_kind: 'lifetime', ends_at: new Date(starts.getTime() + 10 * DAY).toISOString() }),
    );
    expect(lifetime.statusCode).toBe(422);
    expect(lifetime.body).toContain('body.budget_kind');
    expect(lifetime.body).toContain('must be daily on Google Ads');
    const low = await manager.post('/v1/ad-networks/campaigns', body({ budget_minor: 99 }));
    expect(low.statusCode).toBe(422);
    expect(low.body).toContain('body.budget_minor');
    expect((await sdr.post('/v1/ad-networks/campaigns', body())).statusCode).toBe(403);
    expect((await stranger.post('/v1/ad-networks/campaigns', body())).statusCode).toBe(404);
  });

  it('plans and syncs without a page: a paused Display campaign on the list, one ad with both images', async () => {
    const res = await manager.post('/v1/ad-networks/campaigns', body());
    expect(res.statusCode).toBe(201);
    id = res.json().id;
    await app.adCampaigns.sync(id);
    const c = await row(id);
    expect(c).toMatchObject({ syncState: 'synced', syncError: null, effectiveStatus: 'PAUSED' });
    const campaign = fake.campaigns.campaigns.get(c.networkCampaignId!)!;
    expect(campaign).toMatchObject({ status: 'PAUSED', channel: 'DISPLAY' });
    expect(fake.campaigns.budgets.get(campaign.budget)?.amountMicros).toBe(25_000_000);
    const audience = (await app.db.select().from(adAudiences).where(eq(adAudiences.id, audienceId)))[0]!;
    const criterion = [...fake.campaigns.criteria.values()].find((x) => x.adGroup === c.networkAdSetId);
    expect(criterion?.userList).toBe(
      `customers/1234567890/userLists/${audience.networkAudienceId!.split('/').pop()}`,
    );
    expect(c.ads).toHaveLength(1);
    const ad = fake.campaigns.ads.get(c.ads[0]!.adId!)!;
    const link = new URL(ad.finalUrls[0]!);
    expect(link.searchParams.get('rly_a')).toBe(c.token);
    expect(link.searchParams.get('utm_source')).toBe('google');
    const size = (rn: string) => {
      const a = fake.campaigns.assets.get(rn);
      return a && [a.width, a.height];
    };
    expect(size(ad.rda.marketingImages[0]!)).toEqual([1200, 628]);
    expect(size(ad.rda.squareMarketingImages[0]!)).toEqual([1080, 1080]);
    expect(ad.rda.businessName).toBe('Acme Search');
    const read = await sdr.get(`/v1/ad-networks/campaigns/${id}`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ network: 'google', status: 'paused', effective_status: 'PAUSED' });
    expect((await stranger.get(`/v1/ad-networks/campaigns/${id}`)).statusCode).toBe(404);
  });

  it('launches (ENABLED) and pauses from Rally; a second run makes nothing twice', async () => {
    const made = fake.campaigns.ads.size;
    expect((await sdr.post(`/v1/ad-networks/campaigns/${id}/launch`)).statusCode).toBe(403);
    expect((await stranger.post(`/v1/ad-networks/campaigns/${id}/launch`)).statusCode).toBe(404);
    expect((await manager.post(`/v1/ad-networks/campaigns/${id}/launch`)).json().status).toBe('active');
    await app.adCampaigns.sync(id);
    let c = await row(id);
    expect(fake.campaigns.campaigns.get(c.networkCampaignId!)?.status).toBe('ENABLED');
    // It starts tomorrow: Google says PENDING until then.
    expect(c.effectiveStatus).toBe('PENDING');
    expect(fake.campaigns.ads.size).toBe(made);
    await manager.post(`/v1/ad-networks/campaigns/${id}/pause`);
    await app.adCampaigns.sync(id);
    c = await row(id);
    expect(c.effectiveStatus).toBe('PAUSED');
    expect(c.ads[0]?.effectiveStatus).toBe('PAUSED');
  });

  it('an ad edited in Rally becomes a new responsive display ad; the old one is removed', async () => {
    const c0 = await row(id);
    await app.db
      .update(content)
      .set({ imageText: 'Robots that pick, pack and ship', updatedAt: new Date(Date.now() + 1000) })
      .where(eq(content.id, contentId));
    await app.adCampaigns.sync(id);
    const c1 = await row(id);
    expect(c1.syncState).toBe('synced');
    expect(c1.ads[0]!.adId).not.toBe(c0.ads[0]!.adId);
    expect(fake.campaigns.ads.get(c0.ads[0]!.adId!)?.status).toBe('REMOVED');
    expect(fake.campaigns.ads.get(c1.ads[0]!.adId!)?.adGroup).toBe(c1.networkAdSetId);
  });

  it('pulls daily results (no reach from Google), stored once per day, with a late correction applied', async () => {
    const c = await row(id);
    const current = c.ads[0]!.adId!;
    // The ad before the edit still has its days: Google reports removed ads' results.
    const removed = [...fake.campaigns.ads.values()].find(
      (a) => a.adGroup === c.networkAdSetId && a.status === 'REMOVED',
    )!;
    for (let d = 0; d < 5; d++) {
      fake.campaigns.setDay(removed.rn, dayOf(d), {
        impressions: 100 + d,
        clicks: 3,
        costMicros: 10_500_000,
      });
      fake.campaigns.setDay(current, dayOf(d), { impressions: 50, clicks: 1, costMicros: 2_000_000 });
    }
    const now = new Date(starts.getTime() + 5 * DAY);
    expect(await app.adCampaignStats.pull(id, now)).toMatchObject({ rows: 10 });
    await app.adCampaignStats.pull(id, now);
    let rows = await app.db.select().from(adCampaignStats).where(eq(adCampaignStats.campaignId, id));
    expect(rows).toHaveLength(10);
    expect(rows.find((r) => r.networkAdId === removed.rn && r.day === dayOf(2))).toMatchObject({
      impressions: 102,
      reach: 0,
      clicks: 3,
      spendMinor: 1050,
    });
    // Google revises a day later (invalid clicks credited back): the next pull replaces it.
    fake.campaigns.setDay(current, dayOf(1), { impressions: 50, clicks: 0, costMicros: 0 });
    await app.adCampaignStats.pull(id, new Date(now.getTime() + DAY));
    rows = await app.db.select().from(adCampaignStats).where(eq(adCampaignStats.campaignId, id));
    expect(rows).toHaveLength(10);
    expect(rows.find((r) => r.networkAdId === current && r.day === dayOf(1))).toMatchObject({
      clicks: 0,
      spendMinor: 0,
    });
    const read = await sdr.get(`/v1/ad-networks/campaigns/${id}/stats`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ currency: 'USD', totals: { spend_minor: 5 * 1050 + 4 * 200 } });
    expect((await sdr.post(`/v1/ad-networks/campaigns/${id}/stats/pull`)).statusCode).toBe(403);
    expect((await stranger.get(`/v1/ad-networks/campaigns/${id}/stats`)).statusCode).toBe(404);
  });

  it('a refusal in Google’s words fails the sync with them; a revoked grant makes the connection inactive', async () => {
    const c = await row(id);
    // The campaign was removed at Google: the status update is refused with a GoogleAdsFailure.
    fake.campaigns.campaigns.delete(c.networkCampaignId!);
    await app.adCampaigns.sync(id);
    expect(await row(id)).toMatchObject({
      syncState: 'failed',
      syncError: 'Google Ads refused: The resource was not found.',
    });
    fake.revokeAll();
    fake.expireAccessTokens();
    await app.adCampaigns.sync(id);
    const [conn] = await app.db
      .select()
      .from(adNetworkConnections)
      .where(eq(adNetworkConnections.id, connectionId));
    expect(conn).toMatchObject({ isActive: false });
    expect((await manager.post(`/v1/ad-networks/campaigns/${id}/launch`)).statusCode).toBe(409);
  });
});
