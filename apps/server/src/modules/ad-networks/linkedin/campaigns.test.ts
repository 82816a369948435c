import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { samplePortraitPng } from '../../creative/index.ts';
import { startFakeLinkedIn } from '../../../../test/fakes/linkedin.ts';
import type { FakeLinkedIn } from '../../../../test/fakes/linkedin.ts';
import { VendorAuthError, VendorError } from '../../integrations/vendor-http.ts';
import type { AdNetworkCampaignApi, CampaignBudget } from '../port.ts';
import { linkedInOnFake } from '../../../../test/linkedin-kit.ts';
import { LINKEDIN_MINIMUM_DAILY_BUDGET } from './campaigns.ts';

// Issue 39 "Creatives and campaigns" and "Results", on LinkedIn: campaigns are created paused with
// budget, schedule and objective set in Rally, launched from Rally, their status read back; daily
// stats per campaign and ad (impressions, reach, clicks, spend) pulled into Rally.

let fake: FakeLinkedIn;
let png: Buffer;
const day = 86_400_000;
beforeAll(async () => {
  fake = await startFakeLinkedIn({ settleMs: 0 });
  png = await samplePortraitPng();
});
afterAll(() => fake.close());

function setup() {
  const { li, ctx } = linkedInOnFake(fake);
  return { li, ctx, api: li.campaigns as AdNetworkCampaignApi };
}

const linkedInError = (e: unknown) => {
  expect(e).toBeInstanceOf(VendorError);
  return JSON.parse((e as VendorError).body) as {
    status: number;
    serviceErrorCode: number;
    code: string;
    message: string;
  };
};

async function build(s: ReturnType<typeof setup>, budget: CampaignBudget = { kind: 'daily', minor: 2_500 }) {
  const audience = await s.li.createAudience(s.ctx, '5001', { name: 'Q1 cohort', description: '' });
  const campaign = await s.api.createCampaign(s.ctx, '5001', { name: 'Rally · Q1', objective: 'traffic' });
  const adSet = await s.api.createAdSet(s.ctx, '5001', {
    name: 'Rally · Q1 cohort',
    campaignId: campaign.id,
    objective: 'traffic',
    audienceId: audience.id,
    budget,
    startsAt: new Date(Date.now() + day),
    endsAt: budget.kind === 'lifetime' ? new Date(Date.now() + 11 * day) : null,
  });
  const { hash } = await s.api.uploadImage(s.ctx, '5001', png, 'rally.png', '7001');
  const creative = await s.api.createCreative(s.ctx, '5001', {
    name: 'Rally · Q1 · 1200x628',
    pageId: '7001',
    imageHash: hash,
    link: 'https://acme.test/lp?rly_a=tok&utm_source=linkedin',
    headline: 'Ship twice as fast',
    message: 'Hi there, see how',
  });
  const ad = await s.api.createAd(s.ctx, '5001', {
    name: 'Rally · Q1 · Feed',
    adSetId: adSet.id,
    creativeId: creative.id,
  });
  return { audience, campaign, adSet, hash, creative, ad };
}
const tail = (id: string) => id.split(':').pop() ?? '';

describe('LinkedIn campaigns adapter against the fake', () => {
  it('takes LinkedIn’s minimum daily budget ($10) and its single-image sizes', () => {
    const { api } = setup();
    expect(api.minimumDailyBudget).toBe(LINKEDIN_MINIMUM_DAILY_BUDGET);
    expect(LINKEDIN_MINIMUM_DAILY_BUDGET).toBe(1_000);
    expect(api.placements.map((p) => p.size)).toEqual(['1200x628', '1080x1080']);
  });

  it('makes a draft campaign group, a campaign on the matched audience, a dark post and a creative', async () => {
    const s = setup();
    const made = await build(s);
    const group = fake.campaigns.groups.get(tail(made.campaign.id));
    expect(group).toMatchObject({ account: '5001', name: 'Rally · Q1', status: 'DRAFT' });
    const campaign = fake.campaigns.campaigns.get(tail(made.adSet.id));
    expect(campaign).toMatchObject({
      group: group?.id,
      objectiveType: 'WEBSITE_VISIT',
      // LinkedIn takes money as decimal text in the account currency.
      dailyBudget: { amount: '25.00', currencyCode: 'USD' },
      totalBudget: null,
      end: null,
      status: 'ACTIVE',
    });
    // Targeting names the segment's ad segment, not the DMP segment id.
    expect(campaign?.segments).toEqual([`urn:li:adSegment:${Number(made.audience.id) + 4_000_000}`]);
    expect(made.hash).toMatch(/^urn:li:image:/);
    expect(fake.campaigns.images.get(made.hash)).toMatchObject({ owner: 'urn:li:organization:7001' });
    expect(fake.campaigns.posts.get(made.creative.id)).toMatchObject({
      account: '5001',
      author: 'urn:li:organization:7001',
      image: made.hash,
      title: 'Ship twice as fast',
      commentary: 'Hi there, see how',
      landingPage: 'https://acme.test/lp?rly_a=tok&utm_source=linkedin',
    });
    expect(made.ad.id).toMatch(/^5001:\d+$/);
    expect(fake.campaigns.creatives.get(tail(made.ad.id))).toMatchObject({
      campaign: campaign?.id,
      reference: made.creative.id,
      intendedStatus: 'ACTIVE',
    });
    // Every call carried the versioned headers (the fake refuses one without them).
    expect(fake.requests.some((r) => r.path === '/rest/adAccounts/5001/adCampaigns')).toBe(true);
  });

  it('sends a total budget with the schedule’s end', async () => {
    const s = setup();
    const made = await build(s, { kind: 'lifetime', minor: 150_000 });
    const campaign = fake.campaigns.campaigns.get(tail(made.adSet.id));
    expect(campaign).toMatchObject({
      dailyBudget: null,
      totalBudget: { amount: '1500.00', currencyCode: 'USD' },
    });
    expect(campaign?.end).toBeGreaterThan(campaign?.start ?? Infinity);
  });

  it('launches and pauses the campaign group, and reads the creatives’ state back', async () => {
    const s = setup();
    const made = await build(s);
    let read = await s.api.readStatus(s.ctx, made.campaign.id, [made.ad.id]);
    expect(read).toEqual({
      effectiveStatus: 'DRAFT',
      ads: [
        { id: made.ad.id, effectiveStatus: 'CAMPAIGN_GROUP_DRAFT', issues: 'CAMPAIGN_GROUP_STATUS_HOLD' },
      ],
    });
    await s.api.setCampaignStatus(s.ctx, made.campaign.id, 'ACTIVE');
    read = await s.api.readStatus(s.ctx, made.campaign.id, [made.ad.id]);
    expect(read).toEqual({
      effectiveStatus: 'ACTIVE',
      ads: [{ id: made.ad.id, effectiveStatus: 'ACTIVE', issues: null }],
    });
    fake.campaigns.reject(tail(made.ad.id), 'Landing page does not work');
    read = await s.api.readStatus(s.ctx, made.campaign.id, [made.ad.id]);
    expect(read.ads[0]).toMatchObject({
      effectiveStatus: 'REJECTED',
      issues: expect.stringContaining('Landing page'),
    });
    await s.api.setCampaignStatus(s.ctx, made.campaign.id, 'PAUSED');
    expect(fake.campaigns.groups.get(tail(made.campaign.id))?.status).toBe('PAUSED');
  });

  it('replaces an edited ad with a new creative in the same campaign and archives the old one', async () => {
    const s = setup();
    const made = await build(s);
    const { hash } = await s.api.uploadImage(
      s.ctx,
      '5001',
      Buffer.concat([png, Buffer.from('x')]),
      'v2.png',
      '7001',
    );
    const post = await s.api.createCreative(s.ctx, '5001', {
      name: 'v2',
      pageId: '7001',
      imageHash: hash,
      link: 'https://acme.test/lp',
      headline: 'Ship even faster',
      message: 'Hi',
    });
    const { adId } = await s.api.replaceCreative(s.ctx, made.ad.id, post.id, made.adSet.id);
    expect(adId).not.toBe(made.ad.id);
    expect(fake.campaigns.creatives.get(tail(made.ad.id))?.intendedStatus).toBe('ARCHIVED');
    expect(fake.campaigns.creatives.get(tail(adId))).toMatchObject({
      reference: post.id,
      campaign: tail(made.adSet.id),
      intendedStatus: 'ACTIVE',
    });
  });

  it('refuses a daily budget under $10 in LinkedIn’s error envelope', async () => {
    const s = setup();
    const audience = await s.li.createAudience(s.ctx, '5001', { name: 'Small', description: '' });
    const campaign = await s.api.createCampaign(s.ctx, '5001', { name: 'Cheap', objective: 'awareness' });
    const err = await s.api
      .createAdSet(s.ctx, '5001', {
        name: 'Cheap',
        campaignId: campaign.id,
        objective: 'awareness',
        audienceId: audience.id,
        budget: { kind: 'daily', minor: 999 },
        startsAt: new Date(Date.now() + day),
        endsAt: null,
      })
      .catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(VendorAuthError);
    expect(linkedInError(err)).toEqual({
      status: 400,
      serviceErrorCode: 100,
      code: 'DAILY_BUDGET_TOO_LOW',
      message: 'Daily budget must be at least 10.00 USD',
    });
  });

  it('fake: refuses what LinkedIn documents as refused', async () => {
    const s = setup();
    const { hash } = await s.api.uploadImage(s.ctx, '5001', png, 'p.png', '7001');
    const spec = { name: 'c', imageHash: hash, link: 'https://acme.test', headline: 'h', message: 'm' };
    // An organisation the member is only an ANALYST of cannot author the ads.
    const analyst = await s.api
      .createCreative(s.ctx, '5001', { ...spec, pageId: '7002' })
      .catch((e: unknown) => e);
    expect(linkedInError(analyst).status).toBe(403);
    const noLink = await s.api
      .createCreative(s.ctx, '5001', { ...spec, pageId: '7001', link: '' })
      .catch((e: unknown) => e);
    expect(linkedInError(noLink).message).toMatch(/contentLandingPage/);
    const notImage = await s.api
      .uploadImage(s.ctx, '5001', Buffer.from('not a picture'), 'x.png', '7001')
      .catch((e: unknown) => e);
    expect(linkedInError(notImage).message).toMatch(/not a PNG or JPEG/);
    // A VIEWER account cannot hold campaigns.
    const viewer = await s.api
      .createCampaign(s.ctx, '5002', { name: 'x', objective: 'traffic' })
      .catch((e: unknown) => e);
    expect(linkedInError(viewer).code).toBe('ACCESS_DENIED');
    // Without the version header every /rest call is refused.
    const res = await fetch(`${fake.url}/rest/adAccounts/5001/adCampaignGroups`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${fake.mintTokens().accessToken}`,
        'content-type': 'application/json',
      },
      body: '{}',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ status: 400, code: 'VERSION_MISSING' });
  });

  it('pulls daily results per creative, spend in minor units and reach 0', async () => {
    const s = setup();
    const made = await build(s);
    const id = tail(made.ad.id);
    fake.campaigns.setDay(id, '2026-03-01', { impressions: 1200, clicks: 14, cost: '53.395' });
    fake.campaigns.setDay(id, '2026-03-02', { impressions: 800, clicks: 9, cost: '31.2' });
    fake.campaigns.setDay(id, '2026-03-05', { impressions: 5, clicks: 0, cost: '0.004' });
    const got = await s.api.dailyStats(s.ctx, made.campaign.id, { since: '2026-03-01', until: '2026-03-02' });
    expect(got.currency).toBe('USD');
    expect(got.rows).toEqual([
      { day: '2026-03-01', adId: made.ad.id, impressions: 1200, reach: 0, clicks: 14, spendMinor: 5340 },
      { day: '2026-03-02', adId: made.ad.id, impressions: 800, reach: 0, clicks: 9, spendMinor: 3120 },
    ]);
    // A late correction is what the next pull reads.
    fake.campaigns.setDay(id, '2026-03-02', { impressions: 810, clicks: 9, cost: '31.5' });
    const again = await s.api.dailyStats(s.ctx, made.campaign.id, {
      since: '2026-03-02',
      until: '2026-03-05',
    });
    expect(again.rows.map((r) => [r.day, r.impressions, r.spendMinor])).toEqual([
      ['2026-03-02', 810, 3150],
      ['2026-03-05', 5, 0],
    ]);
  });

  it('a revoked token is a VendorAuthError in LinkedIn’s words', async () => {
    const s = setup();
    fake.revokeAll();
    const err = await s.api
      .createCampaign(s.ctx, '5001', { name: 'x', objective: 'traffic' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VendorAuthError);
    expect((err as Error).message).toMatch(/revoked by the user/);
  });
});
