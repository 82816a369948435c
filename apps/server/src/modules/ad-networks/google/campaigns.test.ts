import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGoogleAds } from '../../../../test/fakes/google-ads.ts';
import type { FakeGoogleAds } from '../../../../test/fakes/google-ads.ts';
import { VendorError } from '../../integrations/vendor-http.ts';
import type { AdapterContext, Credentials } from '../../integrations/port.ts';
import { networkWords } from '../campaign-service.ts';
import type { AdNetworkCampaignApi } from '../port.ts';
import { createGoogleAdsAdapter } from './adapter.ts';
import { fit, GOOGLE_MINIMUM_DAILY_BUDGET } from './campaigns.ts';
import { microsToMinor } from './reporting.ts';

// Issue 39 "Creatives and campaigns" and "Results" on Google Ads: Display campaigns created paused
// with budget, schedule and objective from Rally, on the Customer Match list, launched and paused,
// ads replaced when edited, status read back, and daily results pulled (paged, micros to cents).

let fake: FakeGoogleAds;
const waits: number[] = [];
const DAY = 86_400_000;
const CUSTOMER = '1234567890';
beforeAll(async () => {
  // Three rows a page so the results pull has to follow nextPageToken (Google: 10,000).
  fake = await startFakeGoogleAds({ pageRows: 3 });
});
afterAll(() => fake.close());

/** A PNG header of the given size: the fake reads the IHDR dimensions, as Google checks ratios. */
function png(width: number, height: number): Buffer {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  return b;
}

function setup() {
  const google = createGoogleAdsAdapter(
    {
      apiUrl: fake.url,
      apiVersion: fake.version,
      dataManagerUrl: fake.url,
      authUrl: fake.url,
      tokenUrl: fake.url,
      appId: fake.clientId,
      appSecret: fake.clientSecret,
      developerToken: fake.developerToken,
    },
    { retry: { sleep: async (ms) => void waits.push(ms), baseDelayMs: 1 } },
  );
  const grant = fake.grant();
  const creds: Credentials = {
    kind: 'oauth',
    accessToken: grant.accessToken,
    refreshToken: grant.refreshToken,
    expiresAt: new Date(Date.now() + 3000_000).toISOString(),
  };
  const ctx: AdapterContext = { credentials: () => creds, saveCredentials: async () => undefined };
  return { google, ctx, api: google.campaigns as AdNetworkCampaignApi, token: grant.accessToken };
}

async function build(s: ReturnType<typeof setup>, headline = 'Ship twice as fast') {
  const audience = await s.google.createAudience(s.ctx, CUSTOMER, { name: 'Q1 cohort', description: '' });
  const startsAt = new Date(Date.now() + 2 * DAY);
  const campaign = await s.api.createCampaign(s.ctx, CUSTOMER, {
    name: 'Rally · Q1',
    objective: 'traffic',
    budget: { kind: 'daily', minor: 2_500 },
    startsAt,
    endsAt: new Date(startsAt.getTime() + 10 * DAY),
  });
  const adSet = await s.api.createAdSet(s.ctx, CUSTOMER, {
    name: 'Rally · Q1 cohort',
    campaignId: campaign.id,
    objective: 'traffic',
    audienceId: audience.id,
    budget: { kind: 'daily', minor: 2_500 },
    startsAt,
    endsAt: null,
  });
  const landscape = await s.api.uploadImage(s.ctx, CUSTOMER, png(1200, 628), 'rally.png', '');
  const square = await s.api.uploadImage(s.ctx, CUSTOMER, png(1080, 1080), 'rally-sq.png', '');
  const creative = await s.api.createCreative(s.ctx, CUSTOMER, {
    name: 'Rally · Q1',
    pageId: '',
    imageHash: landscape.hash,
    moreImages: [{ size: '1080x1080', hash: square.hash }],
    link: 'https://acme.test/lp?rly_a=tok&utm_source=google',
    headline,
    message: 'Hi there, see how',
  });
  const ad = await s.api.createAd(s.ctx, CUSTOMER, {
    name: 'Rally · Q1 · RDA',
    adSetId: adSet.id,
    creativeId: creative.id,
  });
  return { audience, campaign, adSet, landscape, square, creative, ad, startsAt };
}

const failureOf = (e: unknown) => {
  expect(e).toBeInstanceOf(VendorError);
  const body = JSON.parse((e as VendorError).body) as {
    error: {
      status: string;
      details: { '@type': string; errors: { errorCode: Record<string, string> }[] }[];
    };
  };
  expect(body.error.details[0]?.['@type']).toContain('errors.GoogleAdsFailure');
  return body.error.details[0]!.errors[0]!.errorCode;
};

describe('Google Ads campaigns adapter against the fake', () => {
  it('makes one responsive display ad (landscape + square), daily budgets only, no page', () => {
    const { api } = setup();
    expect(api.minimumDailyBudget).toBe(GOOGLE_MINIMUM_DAILY_BUDGET);
    expect(api.placements).toEqual([
      { size: '1200x628', label: 'Responsive display ad', also: ['1080x1080'] },
    ]);
    expect(api.needsPage).toBe(false);
    expect(api.budgetKinds).toEqual(['daily']);
  });

  it('makes a paused Display campaign with its budget in micros, dates in the account’s zone, on the list', async () => {
    const s = setup();
    const made = await build(s);
    const c = fake.campaigns.campaigns.get(made.campaign.id)!;
    expect(c).toMatchObject({ status: 'PAUSED', channel: 'DISPLAY', bidding: 'targetSpend' });
    expect(c.eu).toBe('DOES_NOT_CONTAIN_EU_POLITICAL_ADVERTISING');
    // $25.00 a day = 25,000,000 micros of USD.
    expect(fake.campaigns.budgets.get(c.budget)?.amountMicros).toBe(25_000_000);
    const zone = (d: Date) => new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(d);
    expect(c.start).toBe(zone(made.startsAt));
    expect(c.end).toBe(zone(new Date(made.startsAt.getTime() + 10 * DAY - 1)));
    const criterion = [...fake.campaigns.criteria.values()].find((x) => x.adGroup === made.adSet.id);
    const listId = made.audience.id.split('/').pop();
    expect(criterion?.userList).toBe(`customers/${CUSTOMER}/userLists/${listId}`);
    const ad = fake.campaigns.ads.get(made.ad.id)!;
    expect(ad.finalUrls).toEqual(['https://acme.test/lp?rly_a=tok&utm_source=google']);
    expect(ad.rda).toMatchObject({
      marketingImages: [made.landscape.hash],
      squareMarketingImages: [made.square.hash],
      headlines: ['Ship twice as fast'],
      longHeadline: 'Ship twice as fast',
      descriptions: ['Hi there, see how'],
      businessName: 'Acme Search',
    });
  });

  it('fits a headline to Google’s 30 characters at a word, and the long headline to 90', async () => {
    expect(fit('Robots that pick, pack and ship your orders overnight', 30)).toBe(
      'Robots that pick, pack and…',
    );
    expect(fit('Short', 30)).toBe('Short');
    const s = setup();
    const made = await build(s, 'Robots that pick, pack and ship your orders overnight');
    const ad = fake.campaigns.ads.get(made.ad.id)!;
    expect(ad.rda.headlines[0]!.length).toBeLessThanOrEqual(30);
    expect(ad.rda.longHeadline).toBe('Robots that pick, pack and ship your orders overnight');
  });

  it('launches (ENABLED) and pauses with an update mask, and reads the status back', async () => {
    const s = setup();
    const made = await build(s);
    let read = await s.api.readStatus(s.ctx, made.campaign.id, [made.ad.id]);
    expect(read).toEqual({
      effectiveStatus: 'PAUSED',
      ads: [{ id: made.ad.id, effectiveStatus: 'PAUSED', issues: null }],
    });
    await s.api.setCampaignStatus(s.ctx, made.campaign.id, 'ACTIVE');
    expect(fake.campaigns.campaigns.get(made.campaign.id)?.status).toBe('ENABLED');
    read = await s.api.readStatus(s.ctx, made.campaign.id, [made.ad.id]);
    // Starts in two days: Google says PENDING until then.
    expect(read.effectiveStatus).toBe('PENDING');
    fake.campaigns.disapprove(made.ad.id);
    read = await s.api.readStatus(s.ctx, made.campaign.id, [made.ad.id]);
    expect(read.ads[0]).toMatchObject({
      effectiveStatus: 'DISAPPROVED',
      issues: expect.stringContaining('disapproved'),
    });
    await s.api.setCampaignStatus(s.ctx, made.campaign.id, 'PAUSED');
    expect(fake.campaigns.campaigns.get(made.campaign.id)?.status).toBe('PAUSED');
  });

  it('replaces an edited ad with a new one in the same ad group; the old is removed', async () => {
    const s = setup();
    const made = await build(s);
    const creative = await s.api.createCreative(s.ctx, CUSTOMER, {
      name: 'Rally · Q1',
      pageId: '',
      imageHash: made.landscape.hash,
      moreImages: [{ size: '1080x1080', hash: made.square.hash }],
      link: 'https://acme.test/lp2',
      headline: 'Now three times as fast',
      message: 'See how',
    });
    const next = await s.api.replaceCreative(s.ctx, made.ad.id, creative.id, made.adSet.id);
    expect(next.adId).not.toBe(made.ad.id);
    expect(fake.campaigns.ads.get(made.ad.id)?.status).toBe('REMOVED');
    expect(fake.campaigns.ads.get(next.adId)).toMatchObject({
      adGroup: made.adSet.id,
      status: 'ENABLED',
      finalUrls: ['https://acme.test/lp2'],
    });
  });

  it('pulls daily results over pages, cost micros to cents, removed ads included, a day twice the same', async () => {
    const s = setup();
    const made = await build(s);
    const creative = await s.api.createCreative(s.ctx, CUSTOMER, {
      name: 'x',
      pageId: '',
      imageHash: made.landscape.hash,
      moreImages: [{ size: '1080x1080', hash: made.square.hash }],
      link: 'https://acme.test/lp3',
      headline: 'Edited',
      message: 'Edited',
    });
    const second = await s.api.replaceCreative(s.ctx, made.ad.id, creative.id, made.adSet.id);
    for (let d = 1; d <= 4; d++) {
      fake.campaigns.setDay(made.ad.id, `2026-11-0${d}`, {
        impressions: 100 * d,
        clicks: d,
        costMicros: 1_234_567 * d,
      });
      fake.campaigns.setDay(second.adId, `2026-11-0${d}`, { impressions: 10, clicks: 0, costMicros: 5_000 });
    }
    fake.campaigns.setDay(second.adId, '2026-10-31', { impressions: 1, clicks: 0, costMicros: 0 });
    const before = fake.requests.length;
    const got = await s.api.dailyStats(s.ctx, made.campaign.id, { since: '2026-11-01', until: '2026-11-04' });
    // 8 rows at 3 a page: three search calls.
    expect(fake.requests.slice(before).filter((r) => r.path.endsWith('googleAds:search'))).toHaveLength(3);
    expect(got.currency).toBe('USD');
    expect(got.rows).toHaveLength(8);
    expect(got.rows.find((r) => r.adId === made.ad.id && r.day === '2026-11-03')).toEqual({
      day: '2026-11-03',
      adId: made.ad.id,
      impressions: 300,
      reach: 0,
      clicks: 3,
      // 3,703,701 micros = $3.703701 → 370 cents.
      spendMinor: 370,
    });
    expect(got.rows.find((r) => r.adId === second.adId && r.day === '2026-11-01')?.spendMinor).toBe(1);
    const again = await s.api.dailyStats(s.ctx, made.campaign.id, {
      since: '2026-11-01',
      until: '2026-11-04',
    });
    expect(again.rows).toEqual(got.rows);
    expect(microsToMinor('1500000', 'JPY')).toBe(2);
    expect(microsToMinor('4999', 'USD')).toBe(0);
    expect(microsToMinor('5000', 'USD')).toBe(1);
  });

  it('waits out a RESOURCE_EXHAUSTED reply for its retry delay, then carries on', async () => {
    const s = setup();
    const made = await build(s);
    waits.length = 0;
    fake.campaigns.throttleNext(1, 7);
    await s.api.setCampaignStatus(s.ctx, made.campaign.id, 'ACTIVE');
    expect(waits).toContain(7_000);
    expect(fake.campaigns.campaigns.get(made.campaign.id)?.status).toBe('ENABLED');
  });
});

describe('the Google Ads fake refuses what Google documents', () => {
  const post = async (token: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${fake.url}/${fake.version}/customers/${CUSTOMER}/${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'developer-token': fake.developerToken,
        'login-customer-id': CUSTOMER,
        'content-type': 'application/json',
        ...headers,
      },
      body: JSON.stringify(body),
    });
    return {
      status: res.status,
      body: (await res.json()) as {
        error?: { details: { errors: { errorCode: object; message: string }[] }[] };
      },
    };
  };
  const code = (r: Awaited<ReturnType<typeof post>>) => r.body.error?.details[0]?.errors[0]?.errorCode;

  it('needs the login-customer-id header as digits, and an update mask on updates', async () => {
    const s = setup();
    const made = await build(s);
    const dashed = await post(
      s.token,
      'campaigns:mutate',
      { operations: [] },
      { 'login-customer-id': '123-456-7890' },
    );
    expect(dashed.status).toBe(400);
    expect(code(dashed)).toEqual({ headerError: 'INVALID_LOGIN_CUSTOMER_ID' });
    const noMask = await post(s.token, 'campaigns:mutate', {
      operations: [{ update: { resourceName: made.campaign.id, status: 'ENABLED' } }],
    });
    expect(code(noMask)).toEqual({ fieldMaskError: 'FIELD_MASK_MISSING' });
    expect(fake.campaigns.campaigns.get(made.campaign.id)?.status).toBe('PAUSED');
  });

  it('refuses a campaign without the EU political ads declaration or with v22’s start_date, keeping nothing', async () => {
    const s = setup();
    const budgets = fake.campaigns.budgets.size;
    const ops = (campaign: Record<string, unknown>) => ({
      mutateOperations: [
        {
          campaignBudgetOperation: {
            create: {
              resourceName: `customers/${CUSTOMER}/campaignBudgets/-1`,
              name: `b ${Math.random()}`,
              amountMicros: '1000000',
            },
          },
        },
        {
          campaignOperation: {
            create: {
              name: `c ${Math.random()}`,
              status: 'PAUSED',
              advertisingChannelType: 'DISPLAY',
              campaignBudget: `customers/${CUSTOMER}/campaignBudgets/-1`,
              targetSpend: {},
              ...campaign,
            },
          },
        },
      ],
    });
    const noEu = await post(s.token, 'googleAds:mutate', ops({}));
    expect(noEu.status).toBe(400);
    expect(code(noEu)).toEqual({ fieldError: 'REQUIRED' });
    const old = await post(
      s.token,
      'googleAds:mutate',
      ops({
        containsEuPoliticalAdvertising: 'DOES_NOT_CONTAIN_EU_POLITICAL_ADVERTISING',
        startDate: '2027-01-01',
      }),
    );
    expect(old.body.error?.details[0]?.errors[0]?.message).toContain('Unknown name "startDate"');
    // Atomic: the budget of the refused request was not kept.
    expect(fake.campaigns.budgets.size).toBe(budgets);
  });

  it('refuses GAQL fields Google does not have (no metrics.reach), an open date range and a page size', async () => {
    const s = setup();
    const reach = await post(s.token, 'googleAds:search', {
      query:
        "SELECT metrics.reach FROM ad_group_ad WHERE segments.date BETWEEN '2026-11-01' AND '2026-11-02'",
    });
    expect(code(reach)).toEqual({ queryError: 'UNRECOGNIZED_FIELD' });
    const open = await post(s.token, 'googleAds:search', {
      query: "SELECT segments.date, metrics.clicks FROM ad_group_ad WHERE segments.date >= '2026-11-01'",
    });
    expect(code(open)).toEqual({ queryError: 'EXPECTED_FILTERS_ON_DATE_RANGE' });
    const sized = await post(s.token, 'googleAds:search', {
      query: 'SELECT customer.id FROM customer',
      pageSize: 50,
    });
    expect(code(sized)).toEqual({ requestError: 'PAGE_SIZE_NOT_SUPPORTED' });
  });

  it('Rally shows Google’s own words from a GoogleAdsFailure', async () => {
    const s = setup();
    const err = await s.api
      .createAdSet(s.ctx, CUSTOMER, {
        name: 'x',
        campaignId: `customers/${CUSTOMER}/campaigns/1`,
        objective: 'traffic',
        audienceId: `accountTypes/GOOGLE_ADS/accounts/${CUSTOMER}/userLists/1`,
        budget: { kind: 'daily', minor: 100 },
        startsAt: new Date(),
        endsAt: null,
      })
      .catch((e: unknown) => e);
    expect(failureOf(err)).toEqual({ mutateError: 'RESOURCE_NOT_FOUND' });
    expect(networkWords(err)).toBe('The campaign was not found.');
  });
});
