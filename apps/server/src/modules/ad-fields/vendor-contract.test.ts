import { afterAll, describe, expect, it } from 'vitest';
import type { AdFieldsPort } from '../integrations/ad-fields-port.ts';
import { createHubSpotAdapter } from '../crm/adapters/hubspot/adapter.ts';
import { createApolloAdapter } from '../integrations/adapters/apolloio/adapter.ts';
import { createOutreachAdapter } from '../integrations/adapters/outreach/adapter.ts';
import { createSalesloftAdapter } from '../integrations/adapters/salesloft/adapter.ts';
import type { AdapterContext, Credentials } from '../integrations/port.ts';
import { oauthCredentialsFrom } from '../integrations/vendor-http.ts';
import { checkRequest, loadSpec, recordingProxy } from '../../../test/vendor-specs/check.ts';
import type { SentRequest } from '../../../test/vendor-specs/check.ts';
import { startFakeApollo } from '../../../test/fakes/apollo.ts';
import { startFakeHubSpot } from '../../../test/fakes/hubspot.ts';
import { startFakeOutreach } from '../../../test/fakes/outreach.ts';
import { startFakeSalesloft } from '../../../test/fakes/salesloft.ts';

/**
 * Every request the ad-fields parts of the sequence and CRM adapters send, checked against the vendor's own
 * API description kept in test/vendor-specs (dated, with its source): the operation, its query
 * parameters and every key of its body must be documented there.
 */

const ctxOf = (creds: Credentials): AdapterContext => ({
  credentials: () => creds,
  saveCredentials: async () => {},
});
const write = {
  recordId: '',
  image: 'https://rally.example/t/abc/ad/email.png',
  click: 'https://rally.example/t/abc/c',
};

/** Runs every ad-fields operation of a port once; returns the requests sent, without OAuth. */
async function exercise(port: AdFieldsPort, ctx: AdapterContext, records: string[], sent: SentRequest[]) {
  await port.available(ctx);
  const fields = port.create ? await port.create(ctx) : { image: 'custom149', click: 'custom150' };
  await port.check(ctx, fields);
  await port.write(
    ctx,
    fields,
    records.map((recordId) => ({ ...write, recordId })),
  );
  return sent.filter((r) => !r.path.startsWith('/oauth'));
}

describe("the ad fields' requests match the vendors' API descriptions", () => {
  const closers: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const close of closers) await close();
  });

  it('Salesloft (API definition v2): custom fields listed and created, people read and updated', async () => {
    const fake = await startFakeSalesloft({
      seed: {
        users: [{ id: 1, first_name: 'A', last_name: 'Admin', email: 'a@spec.example', team_admin: true }],
        people: [{ id: 7, first_name: 'P', last_name: 'Q', email_address: 'p@spec.example' }],
      },
    });
    const proxy = await recordingProxy(fake.apiUrl);
    closers.push(fake.close, proxy.close);
    const adapter = createSalesloftAdapter({
      apiUrl: proxy.url,
      authUrl: fake.authUrl,
      clientId: fake.clientId,
      clientSecret: fake.clientSecret,
    });
    const sent = await exercise(
      adapter.adFields!,
      ctxOf(oauthCredentialsFrom(fake.grantTokens())),
      ['7'],
      proxy.sent,
    );
    const spec = loadSpec('salesloft-2026-12-05.json');
    expect(sent.flatMap((r) => checkRequest(spec, r))).toEqual([]);
    expect(new Set(sent.map((r) => `${r.method} ${r.path.replace(/\d+$/, '{id}')}`))).toEqual(
      new Set(['GET /v2/custom_fields', 'POST /v2/custom_fields', 'GET /v2/people', 'PUT /v2/people/{id}']),
    );
  });

  it('Outreach (OpenAPI): prospects read by id with two fields, and patched as JSON:API', async () => {
    const fake = await startFakeOutreach({
      data: {
        users: [{ id: 11, firstName: 'A', lastName: 'B' }],
        prospects: [{ id: 31, firstName: 'P', lastName: 'Q' }],
      },
    });
    const proxy = await recordingProxy(fake.apiUrl);
    closers.push(fake.close, proxy.close);
    const adapter = createOutreachAdapter({
      apiUrl: proxy.url,
      authUrl: fake.authUrl,
      clientId: fake.clientId,
      clientSecret: fake.clientSecret,
    });
    const sent = await exercise(
      adapter.adFields!,
      ctxOf(oauthCredentialsFrom(fake.issueTokens({ userId: 11 }))),
      ['31'],
      proxy.sent,
    );
    const spec = loadSpec('outreach-2026-12-05.json');
    const attributes = Object.keys(spec.components?.schemas?.prospect?.properties ?? {});
    // filter[…], fields[…] and page[size] are JSON:API conventions Outreach documents in prose
    // (Getting started), not per operation: they are checked against the prospect's attributes.
    const problems = sent.flatMap((r) =>
      checkRequest(spec, r).filter((p) => !/query (filter|fields|page)\[/.test(p)),
    );
    expect(problems).toEqual([]);
    const read = sent.find((r) => r.method === 'GET')!;
    expect([...read.query.keys()].sort()).toEqual(['fields[prospect]', 'filter[id]', 'page[size]']);
    for (const f of read.query.get('fields[prospect]')!.split(',')) expect(attributes).toContain(f);
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /api/v2/prospects',
      'PATCH /api/v2/prospects/31',
    ]);
  });

  it('Apollo (OpenAPI): custom fields listed and created, contacts bulk updated', async () => {
    const fake = await startFakeApollo();
    const proxy = await recordingProxy(fake.apiUrl);
    closers.push(fake.close, proxy.close);
    const contact = fake.addContact({ first_name: 'P', last_name: 'Q' });
    const adapter = createApolloAdapter({ apiUrl: proxy.url });
    const sent = await exercise(
      adapter.adFields!,
      ctxOf({ kind: 'api_key', apiKey: fake.masterKey }),
      [contact.id],
      proxy.sent,
    );
    const spec = loadSpec('apollo-2026-12-05.json');
    expect(sent.flatMap((r) => checkRequest(spec, r))).toEqual([]);
    expect(new Set(sent.map((r) => `${r.method} ${r.path}`))).toEqual(
      new Set(['GET /api/v1/fields', 'POST /api/v1/fields', 'POST /api/v1/contacts/bulk_update']),
    );
  });

  it('HubSpot (OpenAPI, CRM v3): contact properties and groups listed and created, contacts batch updated', async () => {
    const fake = await startFakeHubSpot();
    const proxy = await recordingProxy(fake.apiUrl);
    closers.push(fake.close, proxy.close);
    const contact = fake.addRecord('contacts', { email: 'p@spec.example', firstname: 'P', lastname: 'Q' });
    const adapter = createHubSpotAdapter({
      apiUrl: proxy.url,
      authUrl: fake.authUrl,
      clientId: fake.clientId,
      clientSecret: fake.clientSecret,
    });
    const sent = await exercise(
      adapter.adFields!,
      ctxOf(oauthCredentialsFrom(fake.issueTokens())),
      [contact.id],
      proxy.sent,
    );
    const spec = loadSpec('hubspot-2026-12-05.json');
    expect(sent.flatMap((r) => checkRequest(spec, r))).toEqual([]);
    expect(new Set(sent.map((r) => `${r.method} ${r.path}`))).toEqual(
      new Set([
        'GET /crm/v3/properties/contacts',
        'GET /crm/v3/properties/contacts/groups',
        'POST /crm/v3/properties/contacts/groups',
        'POST /crm/v3/properties/contacts',
        'POST /crm/v3/objects/contacts/batch/update',
      ]),
    );
  });

  it('the checker itself refuses an undocumented operation, query parameter and body key', () => {
    const spec = loadSpec('apollo-2026-12-05.json');
    const q = new URLSearchParams({ source: 'custom', colour: 'blue' });
    expect(checkRequest(spec, { method: 'GET', path: '/api/v1/fields', query: q, body: undefined })).toEqual([
      'GET /fields: query colour is not documented',
    ]);
    expect(
      checkRequest(spec, {
        method: 'POST',
        path: '/api/v1/contacts/bulk_update',
        query: new URLSearchParams(),
        body: { contact_attributes: [{ id: 'x', custom_fields: {} }] },
      }),
    ).toEqual(['POST /contacts/bulk_update: body.contact_attributes[0].custom_fields is not documented']);
    expect(
      checkRequest(spec, {
        method: 'DELETE',
        path: '/api/v1/fields',
        query: new URLSearchParams(),
        body: undefined,
      }),
    ).toEqual(['DELETE /api/v1/fields is not a documented operation']);
  });
});
