import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { and, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { suppressions } from '../../db/schema/index.ts';
import { crmAdFieldsWorld } from '../../../test/ad-fields-crm-kit.ts';
import { startFakeHubSpot } from '../../../test/fakes/hubspot.ts';
import type { FakeHubSpot } from '../../../test/fakes/hubspot.ts';
import { startFakeMarketo } from '../../../test/fakes/marketo.ts';
import { startFakeSalesforce } from '../../../test/fakes/salesforce.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeClient } from '../../../test/http.ts';
import { importCsvFile } from '../fileforce/index.ts';
import { oauthCredentialsFrom } from '../integrations/vendor-http.ts';

/**
 * Issue 44: "Opt-outs already in the connected systems are honoured on sync (… HubSpot
 * unsubscribes, Salesforce `HasOptedOutOfEmail`, Marketo `unsubscribed`; check each vendor's
 * field)." Each CRM against its fake on loopback, the field as the vendor documents it and asked
 * for by name (HubSpot `properties`, the SOQL select list, Marketo `fields`): a person opted out
 * in the CRM is on the client's suppression list after a sync (source opt_out, the vendor in the
 * reason), one opted out later after the next sync, the others not; the client's other tenants are
 * untouched; and an import of the same person keeps them suppressed.
 */
let app: FastifyInstance;
let hubspot: FakeHubSpot;
let sf: Awaited<ReturnType<typeof startFakeSalesforce>>;
let marketo: Awaited<ReturnType<typeof startFakeMarketo>>;
let stranger: string;

beforeAll(async () => {
  hubspot = await startFakeHubSpot();
  sf = await startFakeSalesforce();
  marketo = await startFakeMarketo();
  app = await createTestApp({
    workers: false,
    env: {
      HUBSPOT_CLIENT_ID: hubspot.clientId,
      HUBSPOT_CLIENT_SECRET: hubspot.clientSecret,
      HUBSPOT_API_URL: hubspot.apiUrl,
      HUBSPOT_AUTH_URL: hubspot.authUrl,
      SALESFORCE_CLIENT_ID: sf.clientId,
      SALESFORCE_CLIENT_SECRET: sf.clientSecret,
      SALESFORCE_AUTH_URL: sf.authUrl,
    },
    adapters: { retry: { retries: 0, sleep: async () => {} } },
  });
  stranger = await makeClient(app, 'Stranger');
}, 60_000);
afterAll(async () => {
  await app?.close();
  await hubspot?.close();
  await sf?.close();
  await marketo?.close();
});

/** The client's suppressions in force: [email, source, reason], sorted. */
const entries = async (clientId: string) =>
  (
    await app.db
      .select()
      .from(suppressions)
      .where(and(eq(suppressions.clientId, clientId), isNull(suppressions.removedAt)))
  )
    .map((r) => [r.email, r.source, r.reason])
    .sort();

/** An import of targets naming `email` (and one new person): the opted-out one is skipped. */
async function importAgain(clientId: string, email: string) {
  const dir = mkdtempSync(path.join(tmpdir(), 'crm-optout-'));
  const file = path.join(dir, 'again.csv');
  writeFileSync(
    file,
    `Email Address,First Name,Last Name,Cadence,Day\n${email.toUpperCase()},Opted,Out,Imported,1\nfresh-${clientId.slice(0, 8)}@example.com,Fresh,Person,Imported,1\n`,
  );
  const done = await importCsvFile(app, { clientId, kind: 'targets', filePath: file });
  expect(done).toMatchObject({ status: 'done', imported_rows: 1, suppressed_rows: 1 });
  expect(await app.suppressions.isSuppressed(clientId, email)).toBe(true);
}

describe('CRM opt-outs on sync', () => {
  it('HubSpot: a contact with hs_email_optout "true" is suppressed, asked for in the search properties', async () => {
    const clientId = await makeClient(app, 'HubSpot client');
    const world = await crmAdFieldsWorld(app, {
      clientId,
      source: 'hubspot',
      credentials: oauthCredentialsFrom(hubspot.issueTokens()),
    });
    hubspot.addRecord('contacts', {
      email: 'gone@hs.example',
      firstname: 'Gone',
      lastname: 'Away',
      hs_email_optout: 'true',
    });
    hubspot.addRecord('contacts', {
      email: 'stays@hs.example',
      firstname: 'Stays',
      lastname: 'Here',
      hs_email_optout: 'false',
    });
    const later = hubspot.addRecord('contacts', {
      email: 'later@hs.example',
      firstname: 'La',
      lastname: 'Ter',
    });
    await world.sync();
    // The contacts search names the property (HubSpot returns only the properties asked for).
    const searches = hubspot.requests
      .filter((r) => r.path === '/crm/v3/objects/contacts/search')
      .map((r) => (r.body as { properties: string[] }).properties)
      .filter((p) => p.includes('email'));
    expect(searches.length).toBeGreaterThan(0);
    for (const p of searches) expect(p).toContain('hs_email_optout');
    expect(await entries(clientId)).toEqual([
      ['gone@hs.example', 'opt_out', 'Opted out in HubSpot (Unsubscribed from all email)'],
    ]);
    // Unsubscribed after the first sync: the next (incremental) sync honours it.
    hubspot.update('contacts', later.id, { hs_email_optout: 'true' });
    await world.sync();
    expect(await app.suppressions.isSuppressed(clientId, 'later@hs.example')).toBe(true);
    expect(await app.suppressions.isSuppressed(clientId, 'stays@hs.example')).toBe(false);
    expect(await app.suppressions.isSuppressed(stranger, 'gone@hs.example')).toBe(false);
    await importAgain(clientId, 'gone@hs.example');
  }, 120_000);

  it('Salesforce: Contact and Lead HasOptedOutOfEmail true are suppressed, the field in the SOQL select lists', async () => {
    const clientId = await makeClient(app, 'Salesforce client');
    const adapter = app.crmSync.adapters.salesforce!;
    const consent = await fetch(adapter.authorizeUrl!({ state: 's', redirectUri: 'http://localhost/cb' }), {
      redirect: 'manual',
    });
    const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
    const credentials = await adapter.exchangeCode!({ code, redirectUri: 'http://localhost/cb' });
    const world = await crmAdFieldsWorld(app, { clientId, source: 'salesforce', credentials });
    sf.add('Contact', {
      Email: 'c-out@sf.example',
      FirstName: 'C',
      LastName: 'Out',
      HasOptedOutOfEmail: true,
    });
    sf.add('Contact', { Email: 'c-in@sf.example', FirstName: 'C', LastName: 'In' });
    sf.add('Lead', {
      Email: 'l-out@sf.example',
      FirstName: 'L',
      LastName: 'Out',
      Company: 'Leads Inc',
      HasOptedOutOfEmail: true,
    });
    const lead = sf.add('Lead', {
      Email: 'l-later@sf.example',
      FirstName: 'L',
      LastName: 'Later',
      Company: 'X',
    });
    await world.sync();
    const selects = sf.queries().filter((q) => /FROM (Contact|Lead)\b/.test(q) && /SystemModstamp/.test(q));
    expect(selects.some((q) => /HasOptedOutOfEmail.*FROM Contact/.test(q))).toBe(true);
    expect(selects.some((q) => /HasOptedOutOfEmail.*FROM Lead/.test(q))).toBe(true);
    expect(await entries(clientId)).toEqual([
      ['c-out@sf.example', 'opt_out', 'Opted out in Salesforce (Email Opt Out)'],
      ['l-out@sf.example', 'opt_out', 'Opted out in Salesforce (Email Opt Out)'],
    ]);
    sf.update('Lead', lead.Id, { HasOptedOutOfEmail: true });
    await world.sync();
    expect(await app.suppressions.isSuppressed(clientId, 'l-later@sf.example')).toBe(true);
    expect(await app.suppressions.isSuppressed(clientId, 'c-in@sf.example')).toBe(false);
    expect(await app.suppressions.isSuppressed(stranger, 'c-out@sf.example')).toBe(false);
    await importAgain(clientId, 'c-out@sf.example');
  }, 120_000);

  it('Marketo: a lead with unsubscribed true is suppressed, the field named in `fields`', async () => {
    const clientId = await makeClient(app, 'Marketo client');
    const world = await crmAdFieldsWorld(app, {
      clientId,
      source: 'marketo',
      credentials: {
        kind: 'client_credentials',
        clientId: marketo.clientId,
        clientSecret: marketo.clientSecret,
        baseUrl: marketo.restUrl,
        accessToken: null,
        expiresAt: null,
      },
    });
    const out = marketo.addLead({
      email: 'out@mkto.example',
      firstName: 'Un',
      lastName: 'Sub',
      unsubscribed: true,
    });
    const stays = marketo.addLead({ email: 'in@mkto.example', firstName: 'Sub', lastName: 'Scribed' });
    const later = marketo.addLead({ email: 'later@mkto.example', firstName: 'La', lastName: 'Ter' });
    marketo.addList('Outbound', [out.id, stays.id, later.id]);
    await world.sync();
    // The lead reads (not the `fields=id` ones of the deletion check) name the field.
    const reads = marketo.requests
      .filter((r) => /^\/rest\/v1\/lists\/\d+\/leads\.json$/.test(r.path))
      .map((r) => String(r.query.fields ?? '').split(','))
      .filter((f) => f.includes('email'));
    expect(reads.length).toBeGreaterThan(0);
    for (const f of reads) expect(f).toContain('unsubscribed');
    expect(await entries(clientId)).toEqual([
      ['out@mkto.example', 'opt_out', 'Opted out in Marketo (Unsubscribed)'],
    ]);
    // Unsubscribed later: "Get Lead Changes" names the field, and the next sync honours it.
    marketo.updateLead(later.id, { unsubscribed: true });
    await world.sync();
    expect(await app.suppressions.isSuppressed(clientId, 'later@mkto.example')).toBe(true);
    expect(await app.suppressions.isSuppressed(clientId, 'in@mkto.example')).toBe(false);
    expect(await app.suppressions.isSuppressed(stranger, 'out@mkto.example')).toBe(false);
    await importAgain(clientId, 'out@mkto.example');
  }, 120_000);
});
