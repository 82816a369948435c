import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { samplePortraitPng } from '../../creative/index.ts';
import { COMPANY_PRIVACY_MINIMUM } from '../../../../test/fakes/linkedin-analytics.ts';
import { LOOKUP_LIMIT, startFakeLinkedIn } from '../../../../test/fakes/linkedin.ts';
import type { FakeLinkedIn } from '../../../../test/fakes/linkedin.ts';
import { VendorAuthError } from '../../integrations/vendor-http.ts';
import type { AdNetworkCampaignApi, AdNetworkCompanyApi } from '../port.ts';
import { linkedInOnFake } from '../../../../test/linkedin-kit.ts';
import { LINKEDIN_COMPANY_PRIVACY_MINIMUM, LINKEDIN_LOOKUP_BATCH } from './companies.ts';

// Issue 39 "Results": LinkedIn's company-level engagement (the MEMBER_COMPANY pivot of "Reporting")
// and the organisations behind it ("Organization Lookup API"), adapter against the strict fake.

let fake: FakeLinkedIn;
let png: Buffer;
const DAY = 86_400_000;
beforeAll(async () => {
  fake = await startFakeLinkedIn({ settleMs: 0 });
  png = await samplePortraitPng();
});
afterAll(() => fake.close());

function setup() {
  const { li, ctx, token } = linkedInOnFake(fake);
  const api = li.campaigns as AdNetworkCampaignApi;
  return { li, ctx, api, companies: api.companies as AdNetworkCompanyApi, token };
}

/** A campaign group with one creative, as Rally makes them. */
async function campaign(s: ReturnType<typeof setup>) {
  const audience = await s.li.createAudience(s.ctx, '5001', { name: 'Buyers', description: '' });
  const group = await s.api.createCampaign(s.ctx, '5001', { name: 'Rally · Buyers', objective: 'traffic' });
  const adSet = await s.api.createAdSet(s.ctx, '5001', {
    name: 'Rally · Buyers',
    campaignId: group.id,
    objective: 'traffic',
    audienceId: audience.id,
    budget: { kind: 'daily', minor: 2_500 },
    startsAt: new Date(Date.now() + DAY),
    endsAt: null,
  });
  const { hash } = await s.api.uploadImage(s.ctx, '5001', png, 'rally.png', '7001');
  const creative = await s.api.createCreative(s.ctx, '5001', {
    name: 'Rally · Buyers · 1200x628',
    pageId: '7001',
    imageHash: hash,
    link: 'https://acme.test/lp',
    headline: 'Ship twice as fast',
    message: 'See how',
  });
  const ad = await s.api.createAd(s.ctx, '5001', {
    name: 'Feed',
    adSetId: adSet.id,
    creativeId: creative.id,
  });
  return { groupId: group.id, creativeId: ad.id.split(':').pop()! };
}

const today = new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * DAY).toISOString().slice(0, 10);

describe('LinkedIn company-level engagement against the fake', () => {
  it('reads impressions and clicks per company and day; companies under the privacy minimum are absent', async () => {
    const s = setup();
    const { groupId, creativeId } = await campaign(s);
    expect(s.companies.privacyMinimum).toBe(LINKEDIN_COMPANY_PRIVACY_MINIMUM);
    expect(LINKEDIN_COMPANY_PRIVACY_MINIMUM).toBe(COMPANY_PRIVACY_MINIMUM);
    fake.campaigns.setCompanyDay(creativeId, daysAgo(2), '9001', { impressions: 40, clicks: 2 });
    fake.campaigns.setCompanyDay(creativeId, daysAgo(1), '9001', { impressions: 30, clicks: 1 });
    fake.campaigns.setCompanyDay(creativeId, daysAgo(1), '9002', { impressions: 3, clicks: 0 });
    // Two impressions: under LinkedIn's minimum, so LinkedIn does not name the company.
    fake.campaigns.setCompanyDay(creativeId, daysAgo(1), '9003', { impressions: 2, clicks: 1 });
    // Older than the two years LinkedIn keeps demographic results: gone.
    fake.campaigns.setCompanyDay(creativeId, daysAgo(800), '9001', { impressions: 99, clicks: 9 });
    const rows = await s.companies.dailyStats(s.ctx, groupId, { since: daysAgo(900), until: today });
    expect(rows).toEqual(
      expect.arrayContaining([
        { day: daysAgo(2), organizationId: '9001', impressions: 40, clicks: 2 },
        { day: daysAgo(1), organizationId: '9001', impressions: 30, clicks: 1 },
        { day: daysAgo(1), organizationId: '9002', impressions: 3, clicks: 0 },
      ]),
    );
    expect(rows).toHaveLength(3);
  });

  it('looks organisations up in batches of 50 with their website and vanity name; unknown ones are absent', async () => {
    const s = setup();
    expect(s.companies.lookupBatch).toBe(LINKEDIN_LOOKUP_BATCH);
    expect(LINKEDIN_LOOKUP_BATCH).toBeLessThanOrEqual(LOOKUP_LIMIT);
    fake.organizations.set('9001', {
      id: 9001,
      localizedName: 'Brightline Freight',
      vanityName: 'brightline',
      localizedWebsite: 'https://www.Brightline.test/about',
    });
    const found = await s.companies.lookup(s.ctx, ['9001', '7002', '424242']);
    expect(found).toEqual(
      expect.arrayContaining([
        {
          id: '9001',
          name: 'Brightline Freight',
          vanityName: 'brightline',
          website: 'https://www.Brightline.test/about',
        },
        { id: '7002', name: 'Acme Labs', vanityName: 'acme-labs', website: null },
      ]),
    );
    expect(found).toHaveLength(2);
    const tooMany = Array.from({ length: LINKEDIN_LOOKUP_BATCH + 1 }, (_, i) => String(1000 + i));
    await expect(s.companies.lookup(s.ctx, tooMany)).rejects.toThrow(/At most 50/);
  });

  it('fake: refuses what LinkedIn documents as refused, in its error envelope', async () => {
    const s = setup();
    const get = (path: string, headers: Record<string, string>) =>
      fetch(`${fake.url}/rest${path}`, { headers: { authorization: `Bearer ${s.token}`, ...headers } });
    const versioned = { 'LinkedIn-Version': fake.version, 'X-Restli-Protocol-Version': '2.0.0' };
    const q =
      '/adAnalytics?q=analytics&pivot=MEMBER_COMPANY&timeGranularity=DAILY' +
      '&dateRange=(start:(year:2026,month:1,day:1))&campaignGroups=List(urn%3Ali%3AsponsoredCampaignGroup%3A1)';
    // "LinkedIn Marketing API Versioning": no LinkedIn-Version header is a 400 VERSION_MISSING.
    const noVersion = await get(`${q}&fields=impressions`, { 'X-Restli-Protocol-Version': '2.0.0' });
    expect(noVersion.status).toBe(400);
    expect(await noVersion.json()).toMatchObject({ status: 400, code: 'VERSION_MISSING' });
    // Protocol 2.0.0 is required on every /rest call.
    const noRestli = await get(`${q}&fields=impressions`, { 'LinkedIn-Version': fake.version });
    expect(noRestli.status).toBe(400);
    // "Some metrics are not available with professional demographic pivots".
    const reach = await get(`${q}&fields=approximateMemberReach`, versioned);
    expect(reach.status).toBe(400);
    expect(await reach.json()).toMatchObject({ status: 400, message: expect.stringMatching(/demographic/) });
    // Rest.li 2.0: URNs inside List() are URL-encoded.
    const raw = await get(
      q.replace(/urn%3A[^)]*/, 'urn:li:sponsoredCampaignGroup:1') + '&fields=impressions',
      versioned,
    );
    expect(raw.status).toBe(400);
    // organizationsLookup is a BATCH_GET: ids=List(…), at most the batch.
    const ids = Array.from({ length: LOOKUP_LIMIT + 1 }, (_, i) => String(1000 + i)).join(',');
    expect((await get(`/organizationsLookup?ids=List(${ids})`, versioned)).status).toBe(400);
    expect((await get('/organizationsLookup?ids=9001', versioned)).status).toBe(400);
  });

  it('a revoked token is a VendorAuthError in LinkedIn’s words', async () => {
    const s = setup();
    const { groupId } = await campaign(s);
    fake.revokeAll();
    await expect(s.companies.dailyStats(s.ctx, groupId, { since: daysAgo(3), until: today })).rejects.toThrow(
      VendorAuthError,
    );
  });
});
