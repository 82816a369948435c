import { createHash } from 'node:crypto';
import type { FakeMeta } from './meta-fake.ts';
import type { FakeMetaDay } from './meta-fake-insights.ts';

/**
 * What the demo's Meta (decision 0037) holds at every start: one token, the fake's ad account and
 * page, and two campaigns with an ad per Meta placement, under fixed ids. The fake keeps nothing
 * across restarts, so the seeded rows in Rally's tables and this world must agree by construction:
 * the seed writes these ids, and every start loads them again. Results are a function of the ad and
 * the day, so any pull (the seed's, or the hourly job's after start) reads the same numbers, and
 * each new day delivers.
 */

/** Long-lived and never refreshed: the fake accepts it until 2099 (Meta's tokens last ~60 days). */
export const DEMO_META_TOKEN = 'EAAdemo0rally0network0token';
export const DEMO_META_TOKEN_EXPIRES = Date.parse('2099-01-01T00:00:00Z');
/** Northwind's own, beside the fake's Acme accounts (which the e2e walk connects Acme to). */
export const DEMO_META_ACCOUNT = { id: 'act_1003', name: 'Northwind Ads', currency: 'USD' } as const;
export const DEMO_META_PAGE = { id: '2003', name: 'Northwind Agency' } as const;
export const DEMO_META_USER = 'Ana Marketer';
/** Meta's placements as Rally's adapter makes them (meta/campaigns.ts). */
const SIZES = ['1080x1080', '1200x628'] as const;

export type DemoMetaCampaign = {
  key: 'live' | 'paused';
  name: string;
  status: 'ACTIVE' | 'PAUSED';
  campaignId: string;
  adSetId: string;
  audienceId: string;
  /** Days before the seed's "today" the campaign started; the paused one stopped `stoppedDaysAgo`. */
  startedDaysAgo: number;
  stoppedDaysAgo: number | null;
  dailyBudgetMinor: number;
  ads: { size: (typeof SIZES)[number]; adId: string; creativeId: string; imageHash: string }[];
};

/** Ids below the fake's own counter (23850000000000), so what the fake makes never collides. */
const id = (n: number) => String(23849000000000 + n);
const ads = (base: number) =>
  SIZES.map((size, i) => ({
    size,
    adId: id(base + 10 + i),
    creativeId: id(base + 20 + i),
    imageHash: createHash('md5').update(`rally-demo-image:${base}:${size}`).digest('hex'),
  }));

export const DEMO_META_AUDIENCE_ID = id(1);
export const DEMO_META_CAMPAIGNS: readonly DemoMetaCampaign[] = [
  {
    key: 'live',
    name: 'Engaged accounts · always on',
    status: 'ACTIVE',
    campaignId: id(100),
    adSetId: id(101),
    audienceId: DEMO_META_AUDIENCE_ID,
    startedDaysAgo: 28,
    stoppedDaysAgo: null,
    dailyBudgetMinor: 4_000,
    ads: ads(100),
  },
  {
    key: 'paused',
    name: 'Growth audit launch',
    status: 'PAUSED',
    campaignId: id(200),
    adSetId: id(201),
    audienceId: DEMO_META_AUDIENCE_ID,
    startedDaysAgo: 26,
    stoppedDaysAgo: 12,
    dailyBudgetMinor: 2_500,
    ads: ads(200),
  },
];

const DAY_MS = 86_400_000;
const dayNumber = (day: string) => Math.floor(Date.parse(`${day}T00:00:00Z`) / DAY_MS);

/** A number in [0, 1) fixed by the text (the same ad and day always deliver the same). */
function unit(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32LE(0) / 2 ** 32;
}

/**
 * What a demo ad did on a day: nothing before its campaign started or after the paused one stopped,
 * both counted from the anchor (the day the demo network was first seeded: the seed sets it on every
 * start from the stored connection, so a restart weeks later reads the same history); otherwise a
 * budget-shaped day with weekend dips and some noise, spend within the daily budget.
 */
export function demoMetaDelivery() {
  let anchorDay = dayNumber(new Date().toISOString().slice(0, 10));
  const byAd = new Map(DEMO_META_CAMPAIGNS.flatMap((c) => c.ads.map((a, i) => [a.adId, { c, i }] as const)));
  const delivery = (adId: string, day: string): FakeMetaDay | null => {
    const found = byAd.get(adId);
    if (!found) return null;
    const { c, i } = found;
    const n = dayNumber(day);
    if (n < anchorDay - c.startedDaysAgo) return null;
    if (c.stoppedDaysAgo !== null && n > anchorDay - c.stoppedDaysAgo) return null;
    const weekday = new Date(n * DAY_MS).getUTCDay();
    const weekend = weekday === 0 || weekday === 6 ? 0.55 : 1;
    const noise = 0.8 + 0.4 * unit(`${adId}|${day}`);
    // The square ad takes about 60 % of the budget, the link ad the rest.
    const share = i === 0 ? 0.6 : 0.4;
    const spendCents = Math.round((c.dailyBudgetMinor * share * weekend * noise * 95) / 100);
    const impressions = Math.round(spendCents * 0.9 * (0.9 + 0.2 * unit(`i|${adId}|${day}`)));
    const reach = Math.round(impressions * (0.7 + 0.1 * unit(`r|${adId}|${day}`)));
    const clicks = Math.round(impressions * (0.006 + 0.01 * unit(`c|${adId}|${day}`)));
    return { impressions, reach, clicks, spend: (spendCents / 100).toFixed(2) };
  };
  return {
    delivery,
    /** The day (YYYY-MM-DD) the demo network was seeded. */
    setAnchor: (day: string) => {
      anchorDay = dayNumber(day);
    },
  };
}

/** Puts the world into a fake just started: its token, audience, campaigns, ad sets, creatives, ads. */
export function loadDemoMetaWorld(fake: FakeMeta): void {
  fake.acceptToken(DEMO_META_TOKEN, DEMO_META_TOKEN_EXPIRES);
  fake.adAccounts.push({
    id: DEMO_META_ACCOUNT.id,
    account_id: DEMO_META_ACCOUNT.id.replace(/^act_/, ''),
    name: DEMO_META_ACCOUNT.name,
    currency: DEMO_META_ACCOUNT.currency,
    account_status: 1,
  });
  fake.pages.push({ ...DEMO_META_PAGE });
  fake.audiences.set(DEMO_META_AUDIENCE_ID, {
    id: DEMO_META_AUDIENCE_ID,
    adAccountId: DEMO_META_ACCOUNT.id,
    name: 'Rally · Engaged prospects',
    description: 'Kept in sync by Rally; members are SHA-256 hashes of e-mail addresses.',
    members: new Set(),
  });
  const account = DEMO_META_ACCOUNT.id;
  for (const c of DEMO_META_CAMPAIGNS) {
    fake.campaigns.campaigns.set(c.campaignId, {
      id: c.campaignId,
      account,
      name: `Rally · ${c.name}`,
      objective: 'OUTCOME_TRAFFIC',
      status: c.status,
    });
    fake.campaigns.adSets.set(c.adSetId, {
      id: c.adSetId,
      account,
      campaignId: c.campaignId,
      dailyBudget: c.dailyBudgetMinor,
      lifetimeBudget: null,
      startTime: new Date(0).toISOString(),
      endTime: null,
      audienceIds: [c.audienceId],
    });
    for (const ad of c.ads) {
      fake.campaigns.images.set(ad.imageHash, { account, bytes: 0 });
      fake.campaigns.creatives.set(ad.creativeId, {
        id: ad.creativeId,
        account,
        pageId: DEMO_META_PAGE.id,
        imageHash: ad.imageHash,
        link: 'https://example.com/',
        message: '',
        headline: c.name,
      });
      fake.campaigns.ads.set(ad.adId, {
        id: ad.adId,
        account,
        adSetId: c.adSetId,
        creativeId: ad.creativeId,
        status: 'ACTIVE',
        rejection: null,
      });
    }
  }
}
