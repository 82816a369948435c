import { afterAll, describe, expect, it } from 'vitest';
import {
  loadSpec,
  operationOf,
  recordingProxy,
  undocumentedKeys,
} from '../../../../test/vendor-specs/check.ts';
import type { SentRequest } from '../../../../test/vendor-specs/check.ts';
import { startFakeGoogleAds } from '../../../../test/fakes/google-ads.ts';
import type { AdapterContext } from '../../integrations/port.ts';
import type { AdNetworkCampaignApi } from '../port.ts';
import { createGoogleAdsAdapter } from './adapter.ts';

/**
 * Every Google Ads API request the campaign adapter sends (budget and campaign, ad group and its
 * Customer Match criterion, image assets, responsive display ads, status updates, GAQL searches)
 * checked against Google's own request messages: an excerpt derived from the Google Ads API protos
 * (test/vendor-specs/google-ads-v25-protos-2026-08-22.json, made by google-ads-from-protos.ts from
 * github.com/googleapis/googleapis; v25 is the newest version in that snapshot, Rally calls v26). The
 * method exists for the verb and path, and every body key is a field of its message, recursively.
 */
const spec = loadSpec('google-ads-v25-protos-2026-08-22.json');
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

function problems(r: SentRequest): string[] {
  const found = operationOf(spec, r);
  if (!found) return [`${r.method} ${r.path} is not a documented method`];
  const schema = found.op.requestBody?.content?.['application/json']?.schema;
  return undocumentedKeys(spec, schema, r.body).map((p) => `${r.method} ${r.path}: ${p}`);
}

const png = (w: number, h: number) => {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
  b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(w, 16);
  b.writeUInt32BE(h, 20);
  return b;
};

describe('Google Ads campaign requests against Google’s request messages', () => {
  it('the checker refuses a field Google does not have (v22’s Campaign.start_date)', () => {
    const body = {
      mutateOperations: [{ campaignOperation: { create: { name: 'x', startDate: '2027-01-01' } } }],
    };
    expect(
      problems({
        method: 'POST',
        path: '/v26/customers/1/googleAds:mutate',
        query: new URLSearchParams(),
        body,
      }),
    ).toEqual([
      'POST /v26/customers/1/googleAds:mutate: body.mutateOperations[0].campaignOperation.create.startDate is not documented',
    ]);
  });

  it('sends only documented methods and fields, from creation to the results pull', async () => {
    const fake = await startFakeGoogleAds();
    const proxy = await recordingProxy(fake.url);
    closers.push(fake.close, proxy.close);
    const google = createGoogleAdsAdapter(
      {
        apiUrl: proxy.url,
        apiVersion: fake.version,
        dataManagerUrl: fake.url,
        authUrl: fake.url,
        tokenUrl: fake.url,
        appId: fake.clientId,
        appSecret: fake.clientSecret,
        developerToken: fake.developerToken,
      },
      { retry: { sleep: async () => undefined, baseDelayMs: 1 } },
    );
    const grant = fake.grant();
    const ctx: AdapterContext = {
      credentials: () => ({
        kind: 'oauth',
        ...grant,
        expiresAt: new Date(Date.now() + 3000_000).toISOString(),
      }),
      saveCredentials: async () => undefined,
    };
    const api = google.campaigns as AdNetworkCampaignApi;
    const customer = '1234567890';
    const audience = await google.createAudience(ctx, customer, { name: 'Q1', description: '' });
    const startsAt = new Date(Date.now() + 86_400_000);
    const campaign = await api.createCampaign(ctx, customer, {
      name: 'Rally · Q1',
      objective: 'traffic',
      budget: { kind: 'daily', minor: 2_500 },
      startsAt,
      endsAt: new Date(startsAt.getTime() + 10 * 86_400_000),
    });
    const adSet = await api.createAdSet(ctx, customer, {
      name: 'Rally · Q1',
      campaignId: campaign.id,
      objective: 'traffic',
      audienceId: audience.id,
      budget: { kind: 'daily', minor: 2_500 },
      startsAt,
      endsAt: null,
    });
    const land = await api.uploadImage(ctx, customer, png(1200, 628), 'a.png', '');
    const square = await api.uploadImage(ctx, customer, png(1080, 1080), 'b.png', '');
    const creative = await api.createCreative(ctx, customer, {
      name: 'x',
      pageId: '',
      imageHash: land.hash,
      moreImages: [{ size: '1080x1080', hash: square.hash }],
      link: 'https://acme.test/lp',
      headline: 'Ship twice as fast',
      message: 'See how',
    });
    const ad = await api.createAd(ctx, customer, { name: 'x', adSetId: adSet.id, creativeId: creative.id });
    await api.replaceCreative(ctx, ad.id, creative.id, adSet.id);
    await api.setCampaignStatus(ctx, campaign.id, 'ACTIVE');
    await api.readStatus(ctx, campaign.id, [ad.id]);
    await api.dailyStats(ctx, campaign.id, { since: '2026-11-01', until: '2026-11-30' });
    const ads = proxy.sent.filter((r) => r.path.startsWith(`/${fake.version}/customers/`));
    expect(new Set(ads.map((r) => r.path.replace(/\d{10}/, '{customerId}')))).toEqual(
      new Set([
        '/v26/customers/{customerId}/googleAds:search',
        '/v26/customers/{customerId}/googleAds:mutate',
        '/v26/customers/{customerId}/assets:mutate',
        '/v26/customers/{customerId}/adGroupAds:mutate',
        '/v26/customers/{customerId}/campaigns:mutate',
      ]),
    );
    expect(ads.flatMap(problems)).toEqual([]);
  });
});
