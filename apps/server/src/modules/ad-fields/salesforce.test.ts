import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { integrations } from '../../db/schema/index.ts';
import { crmAdFieldsWorld } from '../../../test/ad-fields-crm-kit.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeClient, signedIn } from '../../../test/http.ts';
import { startFakeSalesforce } from '../../../test/fakes/salesforce.ts';
import { SALESFORCE_AD_FIELDS } from '../crm/adapters/salesforce/ad-fields.ts';

/**
 * The write-back into Salesforce Contact fields (issue 38) on the real app against the fake: the
 * fields cannot be made through the REST API, so "create" answers what to make in Setup; every
 * matched Contact (and Lead) is written once through sObject Collections (`PATCH /composite/sobjects`, 200 a
 * request), nothing the second time, the neutral pair for a prospect that left, 403
 * REQUEST_LIMIT_EXCEEDED waited out, a deleted Contact set aside, and read-only field-level
 * security said on the connection.
 */
describe('ad fields written to Salesforce contacts', async () => {
  const sf = await startFakeSalesforce();
  afterAll(() => sf.close());
  const slept: number[] = [];
  const app = await createTestApp({
    workers: false,
    env: {
      SALESFORCE_CLIENT_ID: sf.clientId,
      SALESFORCE_CLIENT_SECRET: sf.clientSecret,
      SALESFORCE_AUTH_URL: sf.authUrl,
    },
    adapters: { retry: { sleep: async (ms: number) => void slept.push(ms) } },
  });
  const clientId = await makeClient(app, 'Salesforce writes');
  const { browser: owner } = await signedIn(app, { [clientId]: 'purple_owner' });
  const { browser: sdr } = await signedIn(app, { [clientId]: 'yellow_sdr' });
  const adapter = app.crmSync.adapters.salesforce!;
  const consent = await fetch(adapter.authorizeUrl!({ state: 's', redirectUri: 'http://localhost/cb' }), {
    redirect: 'manual',
  });
  const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
  const credentials = await adapter.exchangeCode!({ code, redirectUri: 'http://localhost/cb' });
  const world = await crmAdFieldsWorld(app, { clientId, source: 'salesforce', credentials });
  const { image, click } = SALESFORCE_AD_FIELDS;
  for (const object of ['Contact', 'Lead']) {
    sf.addCustomField(object, image, 'Rally ad image URL');
    sf.addCustomField(object, click, 'Rally ad click URL');
  }
  sf.addCustomField('Contact', 'Notes__c', 'Notes', { type: 'textarea' });
  const contact = (i: number, domain = 'sf.example') =>
    sf.add('Contact', { Email: `c${i}@${domain}`, FirstName: `C${i}`, LastName: 'Force' });
  // 250 contacts on a cadence with ads: more than one request of 200.
  const people = Array.from({ length: 250 }, (_, i) => contact(i));
  const strangers = Array.from({ length: 2 }, (_, i) => contact(i, 'elsewhere.example'));
  const first = await world.cadence('First');
  const second = await world.cadence('Second');
  const token = new Map<string, string>();
  for (const p of people) token.set(p.Id, await world.enrol(first, String(p.Email)));
  const fieldsOf = (id: string) => {
    const r = sf.records('Contact').find((c) => c.Id === id)!;
    return { image: r[image], click: r[click] };
  };
  const patches = () =>
    sf.requests.filter((r) => r.method === 'PATCH' && r.path.endsWith('/composite/sobjects'));
  const sizes = () => patches().map((r) => (r.body as { records: unknown[] }).records.length);
  const base = `/v1/rest/client/${clientId}/ad_fields/${world.integrationId}`;
  await world.sync();

  it('"create" answers 422 with what to make in Setup; the fields made there are offered and chosen', async () => {
    const refused = await owner.post(`${base}/create`);
    expect(refused.statusCode).toBe(422);
    expect(refused.json().instructions).toMatch(
      /Setup › Object Manager › Contact › Fields & Relationships.*Rally_Ad_Image_URL__c.*field-level security.*Lead/,
    );
    const offered = (await owner.get(`${base}/available`)).json().items;
    expect(offered.map((f: { name: string }) => f.name)).toEqual(['Notes__c', click, image]);
    expect(offered[0]).toMatchObject({ object: 'Contact' });
    const chosen = await owner.put(base, { image_field: image, click_field: click, enabled: true });
    expect(chosen.statusCode).toBe(200);
    expect(chosen.json()).toMatchObject({ can_create_fields: false, instructions: expect.any(String) });
  });

  it('the first run writes every matched contact once, in requests of 200', async () => {
    sf.clearRequests();
    await world.write();
    for (const p of people) expect(fieldsOf(p.Id)).toEqual(world.urls(token.get(p.Id)!));
    for (const s of strangers) expect(fieldsOf(s.Id)).toEqual({ image: undefined, click: undefined });
    expect(sizes()).toEqual([200, 50]);
    const sent = patches()[0]!.body as { allOrNone: boolean; records: Record<string, unknown>[] };
    expect(sent.allOrNone).toBe(false);
    expect(sent.records[0]).toMatchObject({ attributes: { type: 'Contact' } });
    expect(await world.listed(sdr)).toMatchObject({
      status: 'ready',
      targets_written: 250,
      targets_pending: 0,
      last_error: null,
    });
  });

  it('a second sync and run send nothing to Salesforce', async () => {
    await world.sync();
    sf.clearRequests();
    await world.write();
    expect(sf.requests).toEqual([]);
  });

  it('a contact whose prospect left gets the neutral pair; one on two cadences gets the other one', async () => {
    const [gone, moved] = [people[0]!, people[1]!];
    const later = await world.enrol(second, String(moved.Email));
    await world.leave(first, String(gone.Email));
    await world.leave(first, String(moved.Email));
    sf.clearRequests();
    await world.write();
    expect(fieldsOf(gone.Id)).toEqual(world.neutral());
    expect(fieldsOf(moved.Id)).toEqual(world.urls(later));
    expect(sizes()).toEqual([2]);
  });

  it('403 REQUEST_LIMIT_EXCEEDED is waited out, and a contact deleted in Salesforce is set aside', async () => {
    const more = Array.from({ length: 3 }, (_, i) => contact(300 + i));
    for (const p of more) token.set(p.Id, await world.enrol(first, String(p.Email)));
    await world.sync();
    sf.remove('Contact', more[0]!.Id);
    sf.failWithLimit(2);
    slept.length = 0;
    sf.clearRequests();
    await world.write();
    expect(sf.requests.filter((r) => r.status === 403)).toHaveLength(2);
    expect(slept).toHaveLength(2);
    for (const p of more.slice(1)) expect(fieldsOf(p.Id)).toEqual(world.urls(token.get(p.Id)!));
    expect(await world.refusal(more[0]!.Id)).toMatch(/no longer exists in Salesforce/);
    expect(await world.listed(sdr)).toMatchObject({ targets_failed: 1, last_error: null });
  });

  it('a lead (read with the contacts) is written as a Lead in the same requests', async () => {
    const l = sf.add('Lead', {
      Email: 'lead@sf.example',
      FirstName: 'Lee',
      LastName: 'Lead',
      Company: 'Initech',
    });
    const t = await world.enrol(first, 'lead@sf.example');
    await world.sync();
    sf.clearRequests();
    await world.write();
    const r = sf.records('Lead').find((x) => x.Id === l.Id)!;
    expect({ image: r[image], click: r[click] }).toEqual(world.urls(t));
    const sent = patches()[0]!.body as { records: Record<string, unknown>[] };
    // (Beside it, the neutral pair for the contact deleted above, which Salesforce refuses once.)
    expect(sent.records).toContainEqual(expect.objectContaining({ id: l.Id, attributes: { type: 'Lead' } }));
  });

  it('a field the connected user may not edit (field-level security) stops the run and says what to change', async () => {
    sf.addCustomField('Contact', click, 'Rally ad click URL', { updateable: false });
    const p = contact(400);
    await world.enrol(first, String(p.Email));
    await world.sync();
    sf.clearRequests();
    await world.write();
    expect(patches()).toEqual([]);
    expect(await world.listed(sdr)).toMatchObject({
      status: 'error',
      last_error: expect.stringMatching(
        /Contact field Rally_Ad_Click_URL__c no longer exists, or the connected user may not edit it.*field-level security/,
      ),
    });
    sf.addCustomField('Contact', click, 'Rally ad click URL');
    await world.write();
    expect(fieldsOf(p.Id).click).toMatch(/\/c$/);
    expect((await world.listed(sdr)).status).toBe('ready');
  });

  it("paces by the org's daily API allocation the last sync stored: over 85 % it asks Salesforce nothing (issue 40 item 7)", async () => {
    const p = contact(500);
    await world.enrol(first, String(p.Email));
    await world.sync();
    const usage = (used: number) => ({ used, max: 15_000, at: new Date().toISOString() });
    const setUsage = (u: ReturnType<typeof usage> | null) =>
      app.db.update(integrations).set({ apiUsage: u }).where(eq(integrations.id, world.integrationId));
    await setUsage(usage(13_000));
    sf.clearRequests();
    await expect(world.write()).rejects.toThrow(/nearly used/);
    expect(sf.requests).toEqual([]);
    expect((await world.listed(sdr)).last_error).toMatch(/13,000 of 15,000 calls in the last 24 hours/);
    // Usage fell (a later sync stored it): the write goes on.
    await setUsage(usage(9_000));
    await world.write();
    expect(fieldsOf(p.Id).click).toMatch(/\/c$/);
  });
});
