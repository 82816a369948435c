import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { samplePortraitPng } from '../../creative/index.ts';
import { startFakeMeta } from '../../../../test/fakes/meta.ts';
import type { FakeMeta } from '../../../../test/fakes/meta.ts';
import { VendorAuthError, VendorError } from '../../integrations/vendor-http.ts';
import type { AdapterContext, Credentials } from '../../integrations/port.ts';
import type { AdNetworkCampaignApi } from '../port.ts';
import { createMetaAdapter } from './adapter.ts';

let fake: FakeMeta;
let png: Buffer;
const waits: number[] = [];
beforeAll(async () => {
  fake = await startFakeMeta();
  png = await samplePortraitPng();
});
afterAll(() => fake.close());

function setup() {
  const meta = createMetaAdapter(
    {
      graphUrl: fake.url,
      authUrl: fake.url,
      apiVersion: fake.version,
      appId: fake.appId,
      appSecret: fake.appSecret,
    },
    { retry: { sleep: async (ms) => void waits.push(ms), baseDelayMs: 1 } },
  );
  const creds: Credentials = {
    kind: 'oauth',
    accessToken: fake.mintToken(3600),
    refreshToken: null,
    expiresAt: new Date(Date.now() + 3600_000).toISOString(),
  };
  const ctx: AdapterContext = { credentials: () => creds, saveCredentials: async () => undefined };
  const api = meta.campaigns as AdNetworkCampaignApi;
  return { meta, ctx, api };
}

const day = 86_400_000;
const graphError = (err: unknown) =>
  (JSON.parse((err as VendorError).body) as { error: { error_subcode?: number; message: string } }).error;

async function audienceOf(s: ReturnType<typeof setup>) {
  return (await s.meta.createAudience(s.ctx, 'act_1001', { name: 'Rally · Q1', description: 'test' })).id;
}

/** Campaign, ad set, image, creative and ad, as the sync job makes them. */
async function build(s: ReturnType<typeof setup>) {
  const audienceId = await audienceOf(s);
  const campaign = await s.api.createCampaign(s.ctx, 'act_1001', {
    name: 'Rally · Q1',
    objective: 'traffic',
  });
  const adSet = await s.api.createAdSet(s.ctx, 'act_1001', {
    name: 'Rally · Q1 audience',
    campaignId: campaign.id,
    objective: 'traffic',
    audienceId,
    budget: { kind: 'daily', minor: 2_000 },
    startsAt: new Date(Date.now() + day),
    endsAt: null,
  });
  const { hash } = await s.api.uploadImage(s.ctx, 'act_1001', png, 'rally.png', '2001');
  const creative = await s.api.createCreative(s.ctx, 'act_1001', {
    name: 'Rally · Q1 · 1080x1080',
    pageId: '2001',
    imageHash: hash,
    link: 'https://acme.test/lp?rly_a=tok&utm_source=meta',
    headline: 'Ship faster',
    message: 'Hi there',
  });
  const ad = await s.api.createAd(s.ctx, 'act_1001', {
    name: 'Rally · Q1 · Feed',
    adSetId: adSet.id,
    creativeId: creative.id,
  });
  return { audienceId, campaign, adSet, hash, creative, ad };
}

describe('Meta campaigns against the fake', () => {
  it('creates a paused campaign with the audience, budget, schedule, page creative and ad', async () => {
    const s = setup();
    const made = await build(s);
    const campaign = fake.campaigns.campaigns.get(made.campaign.id)!;
    expect(campaign).toMatchObject({ status: 'PAUSED', objective: 'OUTCOME_TRAFFIC' });
    expect(fake.campaigns.adSets.get(made.adSet.id)).toMatchObject({
      dailyBudget: 2_000,
      lifetimeBudget: null,
      audienceIds: [made.audienceId],
    });
    expect(fake.campaigns.creatives.get(made.creative.id)).toMatchObject({
      pageId: '2001',
      imageHash: made.hash,
    });
    const read = await s.api.readStatus(s.ctx, made.campaign.id, [made.ad.id]);
    expect(read).toEqual({
      effectiveStatus: 'PAUSED',
      ads: [{ id: made.ad.id, effectiveStatus: 'CAMPAIGN_PAUSED', issues: null }],
    });
  });

  it('launches and pauses, and reads the status and review issues back', async () => {
    const s = setup();
    const made = await build(s);
    await s.api.setCampaignStatus(s.ctx, made.campaign.id, 'ACTIVE');
    let read = await s.api.readStatus(s.ctx, made.campaign.id, [made.ad.id]);
    expect(read.effectiveStatus).toBe('ACTIVE');
    expect(read.ads[0]?.effectiveStatus).toBe('ACTIVE');
    fake.campaigns.disapprove(made.ad.id, 'The landing page does not work.');
    read = await s.api.readStatus(s.ctx, made.campaign.id, [made.ad.id]);
    expect(read.ads[0]).toMatchObject({
      effectiveStatus: 'DISAPPROVED',
      issues: 'The landing page does not work.',
    });
    await s.api.setCampaignStatus(s.ctx, made.campaign.id, 'PAUSED');
    read = await s.api.readStatus(s.ctx, made.campaign.id, [made.ad.id]);
    expect(read.effectiveStatus).toBe('PAUSED');
  });

  it('replaces the creative of an ad edited in Rally', async () => {
    const s = setup();
    const made = await build(s);
    const { hash } = await s.api.uploadImage(
      s.ctx,
      'act_1001',
      Buffer.concat([png, Buffer.from('x')]),
      'v2.png',
      '2001',
    );
    const next = await s.api.createCreative(s.ctx, 'act_1001', {
      name: 'v2',
      pageId: '2001',
      imageHash: hash,
      link: 'https://acme.test/lp',
      headline: 'Ship even faster',
      message: 'Hi there',
    });
    expect(await s.api.replaceCreative(s.ctx, made.ad.id, next.id, made.adSet.id)).toEqual({
      adId: made.ad.id,
    });
    expect(fake.campaigns.ads.get(made.ad.id)?.creativeId).toBe(next.id);
  });

  it('the fake refuses what Meta refuses: low budget, no page, unknown image, no special ad categories', async () => {
    const s = setup();
    const audienceId = await audienceOf(s);
    const campaign = await s.api.createCampaign(s.ctx, 'act_1001', { name: 'x', objective: 'awareness' });
    const low = await s.api
      .createAdSet(s.ctx, 'act_1001', {
        name: 'x',
        campaignId: campaign.id,
        objective: 'awareness',
        audienceId,
        budget: { kind: 'daily', minor: 50 },
        startsAt: new Date(),
        endsAt: null,
      })
      .catch((e: unknown) => e);
    expect(low).toBeInstanceOf(VendorError);
    expect(graphError(low).error_subcode).toBe(1885272);
    const lifetimeWithoutEnd = await s.api
      .createAdSet(s.ctx, 'act_1001', {
        name: 'x',
        campaignId: campaign.id,
        objective: 'awareness',
        audienceId,
        budget: { kind: 'lifetime', minor: 50_000 },
        startsAt: new Date(),
        endsAt: null,
      })
      .catch((e: unknown) => e);
    expect(graphError(lifetimeWithoutEnd).message).toMatch(/end_time is required/);
    const { hash } = await s.api.uploadImage(s.ctx, 'act_1001', png, 'p.png', '2001');
    const spec = { name: 'c', imageHash: hash, link: 'https://acme.test', headline: 'h', message: 'm' };
    const noPage = await s.api
      .createCreative(s.ctx, 'act_1001', { ...spec, pageId: '' })
      .catch((e: unknown) => e);
    expect(graphError(noPage).message).toMatch(/page_id/);
    const foreignPage = await s.api
      .createCreative(s.ctx, 'act_1001', { ...spec, pageId: '999' })
      .catch((e: unknown) => e);
    expect(graphError(foreignPage).message).toMatch(/page you have a role on/);
    const unknownImage = await s.api
      .createCreative(s.ctx, 'act_1001', { ...spec, pageId: '2001', imageHash: 'f'.repeat(32) })
      .catch((e: unknown) => e);
    expect(graphError(unknownImage).message).toMatch(/Image hash/);
    const notImage = await s.api
      .uploadImage(s.ctx, 'act_1001', Buffer.from('not a picture'), 'x.png', '2001')
      .catch((e: unknown) => e);
    expect(graphError(notImage).message).toMatch(/not a supported image/);
    // What the adapter never sends: a campaign without special_ad_categories (required since v7.0).
    const bare = await fetch(`${fake.url}/${fake.version}/act_1001/campaigns`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fake.mintToken(60)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x', objective: 'OUTCOME_TRAFFIC', status: 'PAUSED' }),
    });
    expect(bare.status).toBe(400);
    expect(await bare.json()).toMatchObject({
      error: { code: 100, message: expect.stringMatching(/special_ad_categories/) },
    });
    const legacy = await fetch(`${fake.url}/${fake.version}/act_1001/campaigns`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fake.mintToken(60)}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'x',
        objective: 'LINK_CLICKS',
        status: 'PAUSED',
        special_ad_categories: [],
      }),
    });
    expect(legacy.status).toBe(400);
  });

  it('waits out a throttle (80004 with X-Business-Use-Case-Usage) and carries on', async () => {
    const s = setup();
    waits.length = 0;
    fake.throttleNext(1, 2);
    const campaign = await s.api.createCampaign(s.ctx, 'act_1001', {
      name: 'throttled',
      objective: 'traffic',
    });
    expect(fake.campaigns.campaigns.get(campaign.id)?.status).toBe('PAUSED');
    // estimated_time_to_regain_access is in minutes.
    expect(waits).toContain(2 * 60_000);
  });

  it('reads daily results per ad from Insights, every page, spend in the account currency’s cents', async () => {
    const s = setup();
    const { ad } = await build(s);
    const second = await s.api.createAd(s.ctx, 'act_1001', {
      name: 'Rally · Q1 · Right column',
      adSetId: fake.campaigns.ads.get(ad.id)!.adSetId,
      creativeId: fake.campaigns.ads.get(ad.id)!.creativeId,
    });
    const campaignId = [...fake.campaigns.campaigns.keys()].find(
      (c) =>
        [...fake.campaigns.adSets.values()].find((x) => x.id === fake.campaigns.ads.get(ad.id)!.adSetId)
          ?.campaignId === c,
    )!;
    // 2 ads × 300 days: 600 rows, more than one page of 500.
    const start = Date.UTC(2026, 0, 1);
    const dayAt = (n: number) => new Date(start + n * day).toISOString().slice(0, 10);
    for (let d = 0; d < 300; d++) {
      fake.insights.setDay(ad.id, dayAt(d), { impressions: 100 + d, reach: 90, clicks: 3, spend: '1.5' });
      fake.insights.setDay(second.id, dayAt(d), { impressions: 7, reach: 7, clicks: 0, spend: '0.07' });
    }
    const before = fake.insights.calls();
    const got = await s.api.dailyStats(s.ctx, campaignId, { since: dayAt(0), until: dayAt(299) });
    expect(fake.insights.calls() - before).toBe(2);
    expect(got.currency).toBe('USD');
    expect(got.rows).toHaveLength(600);
    expect(got.rows.find((r) => r.adId === ad.id && r.day === dayAt(10))).toEqual({
      day: dayAt(10),
      adId: ad.id,
      impressions: 110,
      reach: 90,
      clicks: 3,
      spendMinor: 150,
    });
    expect(got.rows.find((r) => r.adId === second.id)?.spendMinor).toBe(7);
    // A range Meta refuses (until before since) is a VendorError in Graph's words.
    const err = await s.api
      .dailyStats(s.ctx, campaignId, { since: dayAt(5), until: dayAt(1) })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VendorError);
    expect(graphError(err).message).toMatch(/time_range/);
  });

  it('a revoked token is a VendorAuthError', async () => {
    const s = setup();
    fake.revokeAll();
    try {
      await expect(
        s.api.createCampaign(s.ctx, 'act_1001', { name: 'dead', objective: 'traffic' }),
      ).rejects.toBeInstanceOf(VendorAuthError);
    } finally {
      // Later tests mint fresh tokens; the fake's revocation lasts until the next code exchange.
      const consent = await fetch(
        `${fake.url}/${fake.version}/dialog/oauth?redirect_uri=http://x/cb&state=s`,
        {
          redirect: 'manual',
        },
      );
      const code = new URL(consent.headers.get('location') ?? '').searchParams.get('code') ?? '';
      await fetch(
        `${fake.url}/${fake.version}/oauth/access_token?client_id=${fake.appId}&client_secret=${fake.appSecret}&redirect_uri=http://x/cb&code=${code}`,
      );
    }
  });
});
