import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkRequest, loadSpec, recordingProxy } from '../../../../../test/vendor-specs/check.ts';
import { startFakeHubSpot } from '../../../../../test/fakes/hubspot.ts';
import type { FakeHubSpot } from '../../../../../test/fakes/hubspot.ts';
import { oauthCredentialsFrom } from '../../../integrations/vendor-http.ts';
import type { AdapterContext, CrmPage } from '../../port.ts';
import { createHubSpotAdapter } from './adapter.ts';

/**
 * A deal's and a contact's associations as HubSpot's v4 batch read gives them (issue 40 item 4): a
 * page at a time per record (`paging.next.after` beside each result), and typed: the deal's account
 * is its company typed "Primary" (typeId 5), wherever it comes in the list.
 */
let fake: FakeHubSpot;
let proxy: Awaited<ReturnType<typeof recordingProxy>>;
let ctx: AdapterContext;
const adapter = () =>
  createHubSpotAdapter(
    { apiUrl: proxy.url, authUrl: fake.authUrl, clientId: fake.clientId, clientSecret: fake.clientSecret },
    { retry: { baseDelayMs: 1, maxDelayMs: 5, sleep: async () => {} } },
  );
const drain = async <T>(pages: AsyncIterable<CrmPage<T>>) => {
  const out: T[] = [];
  for await (const p of pages) out.push(...p.items);
  return out;
};

beforeAll(async () => {
  // Two associations a page: a record with five needs three pages.
  fake = await startFakeHubSpot({
    associationPageSize: 2,
    seed: {
      pipelines: [
        {
          id: 'default',
          label: 'Sales',
          displayOrder: 0,
          stages: [{ id: 'open', label: 'Open', displayOrder: 0, probability: '0.5', isClosed: 'false' }],
        },
      ],
      companies: ['Alpha', 'Beta', 'Gamma'].map((name) => ({
        properties: { name, domain: `${name}.example` },
      })),
      contacts: Array.from({ length: 5 }, (_, i) => ({
        properties: { email: `c${i}@alpha.example`, firstname: `C${i}`, lastname: 'X' },
      })),
      deals: [
        // Associated with Alpha, then Beta, then Gamma; Gamma is the primary one.
        {
          properties: { dealname: 'Big deal', pipeline: 'default', dealstage: 'open' },
          companyIndexes: [0, 1, 2],
          companyIndex: 2,
          contactIndexes: [0, 1, 2, 3, 4],
        },
      ],
    },
  });
  proxy = await recordingProxy(fake.apiUrl);
  let creds = oauthCredentialsFrom(fake.issueTokens());
  ctx = {
    credentials: () => creds,
    saveCredentials: async (next) => {
      creds = next as typeof creds;
    },
  };
});
afterAll(async () => {
  await proxy?.close();
  await fake?.close();
});

describe('HubSpot associations (v4 batch read)', () => {
  it("follows each record's paging: every contact role of a deal with five contacts", async () => {
    fake.clearRequests();
    const [deal] = await drain(adapter().opportunities!(ctx, null));
    expect(deal!.contactRoles).toHaveLength(5);
    const contacts = fake.objects('contacts').map((c) => c.id);
    expect(deal!.contactRoles!.map((r) => r.contactExternalId).sort()).toEqual([...contacts].sort());
    // Pages 2 and 3 were asked for with the cursor beside the deal's id.
    const reads = fake.requests.filter((r) => r.path === '/crm/v4/associations/deals/contacts/batch/read');
    expect(reads).toHaveLength(3);
    // The pages after the first, asked for as HubSpot's OpenAPI describes (`inputs[].after`).
    const paged = proxy.sent.filter(
      (r) => JSON.stringify(r.body ?? '').includes('"after"') && r.path.includes('/v4/'),
    );
    expect(paged.length).toBeGreaterThanOrEqual(2);
    const spec = loadSpec('hubspot-sync-2026-12-05.json');
    // Deals are described under their type id (0-3) in the spec; HubSpot serves both paths.
    const documented = proxy.sent.map((r) => ({
      ...r,
      path: r.path.replace('/objects/deals', '/objects/0-3'),
    }));
    expect(documented.flatMap((r) => checkRequest(spec, r, { strict: true }))).toEqual([]);
  });

  it('follows paging for activity totals: a contact with five calls counts five', async () => {
    const ann = fake.objects('contacts')[0]!;
    for (let i = 0; i < 5; i++) fake.addActivity('calls', ann.id);
    const counts = await drain(
      adapter().activityCounts!(ctx, null, async function* () {
        yield { items: [{ externalId: ann.id, updatedAt: ann.updatedAt }], total: 1 };
      }),
    );
    expect(counts.find((c) => c.activityType === 'Call')).toMatchObject({
      contactExternalId: ann.id,
      count: 5,
    });
  });

  it('the account of a deal is its company typed Primary (typeId 5), not the first associated', async () => {
    const [alpha, , gamma] = fake.objects('companies');
    const [deal] = await drain(adapter().opportunities!(ctx, null));
    expect(deal!.accountExternalId).toBe(gamma!.id);
    // The user makes Alpha the primary company: the next read follows.
    fake.setPrimaryCompany(deal!.externalId, alpha!.id);
    const [again] = await drain(adapter().opportunities!(ctx, null));
    expect(again!.accountExternalId).toBe(alpha!.id);
  });
});
