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
import { connectLinkedInDirectly, makeCohort } from '../../../../test/ad-network-kit.ts';
import { makeContent } from '../../../../test/engagement.ts';
import { startFakeLinkedIn } from '../../../../test/fakes/linkedin.ts';
import type { FakeLinkedIn } from '../../../../test/fakes/linkedin.ts';

/**
 * Issue 39 on LinkedIn, through the routes: "Campaigns are created paused with budget, schedule and
 * objective set in Rally, launched from Rally, and their status read back; editing the ad in Rally
 * replaces it on the network" and "Daily stats per campaign and ad … pulled by a job into Rally,
 * idempotent per day", against the strict LinkedIn fake.
 */
let fake: FakeLinkedIn;
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
const tail = (s: string) => s.split(':').pop() ?? '';

beforeAll(async () => {
  fake = await startFakeLinkedIn({ settleMs: 0 });
  app = await createTestApp({
    workers: false,
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
  manager = (await signedIn(app, { [mine]: 'green_manager' })).browser;
  sdr = (await signedIn(app, { [mine]: 'yellow_sdr' })).browser;
  stranger = (await signedIn(app, { [foreign]: 'purple_owner' })).browser;
  const tokens = fake.mintTokens();
  const connection = await connectLinkedInDirectly(app, mine, {
    ...tokens,
    expiresAt: new Date(Date.now() + 60 * DAY).toISOString(),
  });
  connectionId = connection.id;
  await app.db
    .update(adNetworkConnections)
    .set({ pageId: '7001', pageName: 'Acme Corp' })
    .where(eq(adNetworkConnections.id, connectionId));
  const { cohortId } = await makeCohort(app, mine, 'Buyers', 320);
  const [audience] = await app.db
    .insert(adAudiences)
    .values({
      clientId: mine,
      connectionId,
      sourceKind: 'cohort',
      cohortId,
      name: 'Buyers',
      adAccountId: '5001',
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

describe('network campaigns on LinkedIn', () => {
  it('options name LinkedIn’s $10 minimum, its single-image sizes and the organisation page', async () => {
    const res = await sdr.get('/v1/ad-networks/linkedin/campaign-options');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      network: 'linkedin',
      minimum_daily_budget_minor: 1_000,
      page_name: 'Acme Corp',
      placements: [{ size: '1200x628' }, { size: '1080x1080' }],
    });
  });

  it('refuses a daily budget under $10 naming the field; SDRs and other clients cannot plan', async () => {
    const low = await manager.post('/v1/ad-networks/campaigns', body({ budget_minor: 999 }));
    expect(low.statusCode).toBe(422);
    expect(low.body).toContain('body.budget_minor');
    expect(low.body).toContain('10.00 a day on LinkedIn');
    expect((await sdr.post('/v1/ad-networks/campaigns', body())).statusCode).toBe(403);
    expect((await stranger.post('/v1/ad-networks/campaigns', body())).statusCode).toBe(404);
  });

  it('plans and syncs: a paused group, a campaign on the audience, dark posts by the page, a creative per size', async () => {
    const res = await manager.post('/v1/ad-networks/campaigns', body());
    expect(res.statusCode).toBe(201);
    id = res.json().id;
    await app.adCampaigns.sync(id);
    const c = await row(id);
    // Made as a DRAFT group, then set to Rally's status (paused): nothing serves before launch.
    expect(c).toMatchObject({ syncState: 'synced', syncError: null, effectiveStatus: 'PAUSED' });
    expect(fake.campaigns.groups.get(tail(c.networkCampaignId!))).toMatchObject({ status: 'PAUSED' });
    expect(c.ads.every((a) => a.effectiveStatus === 'CAMPAIGN_GROUP_PAUSED')).toBe(true);
    expect(fake.campaigns.campaigns.get(tail(c.networkAdSetId!))).toMatchObject({
      objectiveType: 'WEBSITE_VISIT',
      dailyBudget: { amount: '25.00', currencyCode: 'USD' },
    });
    expect(c.ads.map((a) => a.size)).toEqual(['1200x628', '1080x1080']);
    for (const ad of c.ads) {
      const creative = fake.campaigns.creatives.get(tail(ad.adId!))!;
      const post = fake.campaigns.posts.get(creative.reference)!;
      expect(post.author).toBe('urn:li:organization:7001');
      const link = new URL(post.landingPage);
      expect(link.searchParams.get('rly_a')).toBe(c.token);
      expect(link.searchParams.get('utm_source')).toBe('linkedin');
      expect(link.searchParams.get('utm_content')).toBe(ad.size);
      expect(fake.campaigns.images.get(post.image)?.bytes).toBeGreaterThan(1000);
    }
  });

  it('launches and pauses the campaign group from Rally; a second run makes nothing twice', async () => {
    const made = fake.campaigns.creatives.size;
    expect((await sdr.post(`/v1/ad-networks/campaigns/${id}/launch`)).statusCode).toBe(403);
    expect((await stranger.post(`/v1/ad-networks/campaigns/${id}/launch`)).statusCode).toBe(404);
    expect((await manager.post(`/v1/ad-networks/campaigns/${id}/launch`)).json().status).toBe('active');
    await app.adCampaigns.sync(id);
    let c = await row(id);
    expect(c.effectiveStatus).toBe('ACTIVE');
    expect(c.ads.every((a) => a.effectiveStatus === 'ACTIVE')).toBe(true);
    expect(fake.campaigns.creatives.size).toBe(made);
    await manager.post(`/v1/ad-networks/campaigns/${id}/pause`);
    await app.adCampaigns.sync(id);
    c = await row(id);
    expect(c.effectiveStatus).toBe('PAUSED');
    expect(c.ads.every((a) => a.effectiveStatus === 'CAMPAIGN_GROUP_PAUSED')).toBe(true);
  });

  it('an ad edited in Rally becomes new creatives (LinkedIn cannot repoint one); the old are archived', async () => {
    const c0 = await row(id);
    await app.db
      .update(content)
      .set({ imageText: 'Robots that pick, pack and ship', updatedAt: new Date(Date.now() + 1000) })
      .where(eq(content.id, contentId));
    await app.adCampaigns.sync(id);
    const c1 = await row(id);
    expect(c1.syncState).toBe('synced');
    for (const ad of c1.ads) {
      const old = c0.ads.find((a) => a.size === ad.size)!;
      expect(ad.adId).not.toBe(old.adId);
      expect(fake.campaigns.creatives.get(tail(old.adId!))?.intendedStatus).toBe('ARCHIVED');
      expect(fake.campaigns.creatives.get(tail(ad.adId!))?.reference).toBe(ad.creativeId);
    }
  });

  it('pulls daily results per creative (reach 0: LinkedIn has none per day), stored once per day', async () => {
    const c = await row(id);
    const ads = c.ads.map((a) => a.adId!);
    for (let d = 0; d < 5; d++)
      for (const [i, ad] of ads.entries())
        fake.campaigns.setDay(tail(ad), dayOf(d), {
          impressions: 100 + d,
          clicks: 3 + i,
          cost: `${10 + i}.5`,
        });
    const now = new Date(starts.getTime() + 5 * DAY);
    expect(await app.adCampaignStats.pull(id, now)).toMatchObject({ rows: 10 });
    await app.adCampaignStats.pull(id, now);
    const rows = await app.db.select().from(adCampaignStats).where(eq(adCampaignStats.campaignId, id));
    expect(rows).toHaveLength(10);
    expect(rows.find((r) => r.networkAdId === ads[1] && r.day === dayOf(2))).toMatchObject({
      impressions: 102,
      reach: 0,
      clicks: 4,
      spendMinor: 1150,
    });
    const read = await sdr.get(`/v1/ad-networks/campaigns/${id}/stats`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ currency: 'USD', totals: { spend_minor: 5 * (1050 + 1150) } });
    expect((await sdr.post(`/v1/ad-networks/campaigns/${id}/stats/pull`)).statusCode).toBe(403);
    expect((await stranger.get(`/v1/ad-networks/campaigns/${id}/stats`)).statusCode).toBe(404);
  });

  it('a revoked token marks the LinkedIn connection inactive and fails the sync in LinkedIn’s words', async () => {
    fake.revokeAll();
    await app.adCampaigns.sync(id);
    const c = await row(id);
    expect(c.syncState).toBe('failed');
    expect(c.syncError).toMatch(/revoked by the user/);
    const [conn] = await app.db
      .select()
      .from(adNetworkConnections)
      .where(eq(adNetworkConnections.id, connectionId));
    expect(conn).toMatchObject({ isActive: false });
    expect((await manager.post(`/v1/ad-networks/campaigns/${id}/launch`)).statusCode).toBe(409);
  });
});
