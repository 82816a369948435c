import { afterAll, describe, expect, it } from 'vitest';
import { checkRequest, loadSpec, recordingProxy } from '../../../../../test/vendor-specs/check.ts';
import type { SentRequest, Spec } from '../../../../../test/vendor-specs/check.ts';
import { crmSyncTwice } from '../../../../../test/vendor-specs/crm-walk.ts';
import { smallPortal, startFakeHubSpot } from '../../../../../test/fakes/hubspot.ts';
import { createHubSpotAdapter } from './adapter.ts';

/**
 * Every request a HubSpot connection sends (the OAuth code exchange, who-am-I, a first and a second
 * sync of the same portal, a token refresh, the revocation at disconnect), checked against HubSpot's
 * own OpenAPI (test/vendor-specs/hubspot-sync-*.json, dated, with its source): the operation exists
 * and is not deprecated, its query parameters and body keys are documented and the body's required
 * keys are there; and the fields the adapter reads exist in the documented replies.
 */

/** HubSpot serves an object by its name or its type id (deals: 0-3); the deals spec uses the id. */
const asDocumented = (r: SentRequest): SentRequest => ({
  ...r,
  path: r.path.replace(/^\/crm\/v3\/objects\/deals(?=\/|$)/, '/crm/v3/objects/0-3'),
});

const propsOf = (spec: Spec, schema: string) =>
  Object.keys(spec.components?.schemas?.[schema]?.properties ?? {});

/** The small portal and a trade-show list of 450 more contacts (issue 18's list bench). */
async function portal() {
  const fake = await startFakeHubSpot({ seed: smallPortal() });
  const contacts = Array.from({ length: 450 }, (_, i) => ({
    properties: { email: `member${i}@list.example`, firstname: `M${i}`, lastname: 'Listed', jobtitle: '' },
  }));
  fake.seed({ contacts, lists: [{ name: 'Trade show', contactIndexes: contacts.map((_, i) => i) }] });
  return fake;
}

describe("a HubSpot connection's requests match HubSpot's OpenAPI (issue 40 item 4)", () => {
  const closers: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const close of closers) await close();
  });

  it('connect, first and second sync, refresh and revoke: documented, current operations only', async () => {
    const fake = await portal();
    const proxy = await recordingProxy(fake.apiUrl);
    closers.push(fake.close, proxy.close);
    const adapter = createHubSpotAdapter(
      { apiUrl: proxy.url, authUrl: fake.authUrl, clientId: fake.clientId, clientSecret: fake.clientSecret },
      { retry: { baseDelayMs: 1, maxDelayMs: 5, sleep: async () => {} } },
    );
    const redirectUri = 'http://localhost/callback';
    const consent = await fetch(adapter.authorizeUrl!({ state: 's', redirectUri }), { redirect: 'manual' });
    const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
    const creds = await adapter.exchangeCode!({ code, redirectUri });
    const { ctx, first, second } = await crmSyncTwice(adapter, creds, () => proxy.sent.length);
    console.info(
      `hubspot contract portal (6 + 450 contacts, 3 lists): first sync ${first.requests} requests (members read ${Object.values(first.members).reduce((a, b) => a + b, 0)}), second sync of the same data ${second.requests} (members read ${Object.values(second.members).reduce((a, b) => a + b, 0)})`,
    );
    // Nothing changed between the two: no list's members are read again (issue 40 item 4).
    expect(second.members).toEqual({});
    fake.expireAccessTokens();
    await adapter.whoami(ctx);
    await adapter.revoke!(ctx.credentials());

    const spec = loadSpec('hubspot-sync-2026-12-05.json');
    const problems = proxy.sent.flatMap((r) => checkRequest(spec, asDocumented(r), { strict: true }));
    expect(problems).toEqual([]);
    const operations = new Set(
      proxy.sent.map((r) => `${r.method} ${r.path.replace(/\/\d+(?=\/|$)/g, '/{id}')}`),
    );
    console.info(
      `hubspot: ${operations.size} operations checked against the spec: ${[...operations].sort().join(', ')}`,
    );

    // What the adapter reads exists in the documented replies.
    expect(propsOf(spec, 'PublicObjectListSearchResult')).toEqual(
      expect.arrayContaining(['listId', 'name', 'objectTypeId', 'updatedAt', 'additionalProperties']),
    );
    expect(propsOf(spec, 'PublicAssociationMultiWithLabel')).toEqual(
      expect.arrayContaining(['from', 'to', 'paging']),
    );
    expect(propsOf(spec, 'AssociationSpecWithLabel')).toEqual(expect.arrayContaining(['typeId', 'category']));
    expect(propsOf(spec, 'PublicAccessTokenInfoResponse')).toEqual(
      expect.arrayContaining(['hub_domain', 'hub_id', 'active']),
    );
    const reads: Record<string, string[]> = {
      AccessTokenResponse: ['access_token', 'refresh_token', 'expires_in'],
      PublicOwner: ['id', 'email', 'firstName', 'lastName', 'archived', 'updatedAt'],
      Pipeline: ['id', 'label', 'displayOrder', 'archived', 'stages'],
      PipelineStage: ['id', 'label', 'displayOrder', 'archived', 'metadata'],
      CollectionResponseWithTotalSimplePublicObject: ['total', 'results', 'paging'],
      SimplePublicObject: ['id', 'properties', 'propertiesWithHistory', 'createdAt', 'updatedAt', 'archived'],
      ValueWithTimestamp: ['value', 'timestamp'],
      ListSearchResponse: ['lists', 'hasMore', 'offset', 'total'],
      JoinTimeAndRecordId: ['recordId', 'membershipTimestamp'],
      MultiAssociatedObjectWithLabel: ['toObjectId', 'associationTypes'],
    };
    for (const [schema, fields] of Object.entries(reads)) {
      expect({ schema, fields: propsOf(spec, schema) }).toEqual({
        schema,
        fields: expect.arrayContaining(fields),
      });
    }
  });
});
