import { afterAll, describe, expect, it } from 'vitest';
import { crmAdFieldsWorld } from '../../../test/ad-fields-crm-kit.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeClient, signedIn } from '../../../test/http.ts';
import { HUBSPOT_SCOPES, startFakeHubSpot } from '../../../test/fakes/hubspot.ts';
import { oauthCredentialsFrom } from '../integrations/vendor-http.ts';

/**
 * The write-back into HubSpot contact properties (issue 38) on the real app against the fake: the
 * properties created in a "Rally" group, every matched contact written once through
 * `POST /crm/v3/objects/contacts/batch/update` (100 a request), nothing the second time, a contact
 * whose prospect left gets the neutral pair, TEN_SECONDLY_ROLLING waited out, a deleted contact set
 * aside (207), a deleted property and missing scopes said on the connection.
 */
describe('ad fields written to HubSpot contacts', async () => {
  let clock = Date.UTC(2026, 11, 5, 9, 0, 0);
  const hubspot = await startFakeHubSpot({ now: () => clock });
  afterAll(() => hubspot.close());
  const slept: number[] = [];
  const app = await createTestApp({
    workers: false,
    env: {
      HUBSPOT_CLIENT_ID: hubspot.clientId,
      HUBSPOT_CLIENT_SECRET: hubspot.clientSecret,
      HUBSPOT_API_URL: hubspot.apiUrl,
      HUBSPOT_AUTH_URL: hubspot.authUrl,
    },
    adapters: {
      retry: {
        sleep: async (ms: number) => {
          slept.push(ms);
          clock += ms;
        },
      },
    },
  });
  const clientId = await makeClient(app, 'HubSpot writes');
  const { browser: owner } = await signedIn(app, { [clientId]: 'purple_owner' });
  const { browser: sdr } = await signedIn(app, { [clientId]: 'yellow_sdr' });
  const tokens = (scope = HUBSPOT_SCOPES.join(' ')) => oauthCredentialsFrom(hubspot.issueTokens(scope));
  const world = await crmAdFieldsWorld(app, { clientId, source: 'hubspot', credentials: tokens() });
  const contact = (i: number, domain = 'hs.example') =>
    hubspot.addRecord('contacts', { email: `c${i}@${domain}`, firstname: `C${i}`, lastname: 'Hub' });
  // 120 contacts whose prospects are on a cadence with ads (more than one request of 100), 3 not.
  const people = Array.from({ length: 120 }, (_, i) => contact(i));
  const strangers = Array.from({ length: 3 }, (_, i) => contact(i, 'elsewhere.example'));
  const first = await world.cadence('First');
  const second = await world.cadence('Second');
  const token = new Map<string, string>();
  for (const p of people) token.set(p.id, await world.enrol(first, p.properties.email!));
  const propsOf = (id: string) => {
    const r = hubspot.objects('contacts').find((c) => c.id === id)!.properties;
    return { image: r.rally_ad_image_url, click: r.rally_ad_click_url };
  };
  const batches = () => hubspot.requests.filter((r) => r.path === '/crm/v3/objects/contacts/batch/update');
  const base = `/v1/rest/client/${clientId}/ad_fields/${world.integrationId}`;
  await world.sync();

  it('"Create the fields for me" makes a Rally group and two text properties, and turns writing on', async () => {
    const made = await owner.post(`${base}/create`);
    expect(made.statusCode).toBe(200);
    expect(made.json()).toMatchObject({
      image_field: 'rally_ad_image_url',
      click_field: 'rally_ad_click_url',
      enabled: true,
      can_create_fields: true,
    });
    expect(hubspot.propertyGroups.get('rally')).toMatchObject({ label: 'Rally' });
    expect(hubspot.customProperties.get('rally_ad_image_url')).toEqual({
      label: 'Rally ad image URL',
      type: 'string',
      fieldType: 'text',
      groupName: 'rally',
    });
    const offered = (await owner.get(`${base}/available`)).json().items.map((f: { name: string }) => f.name);
    expect(offered).toEqual(['rally_ad_click_url', 'rally_ad_image_url']);
    // Asked again: found, not made twice (no 409 shown to the owner).
    expect((await owner.post(`${base}/create`)).statusCode).toBe(200);
    expect(hubspot.requests.filter((r) => r.method === 'POST' && r.status === 201)).toHaveLength(3);
  });

  it('the first run writes every matched contact once, in requests of 100', async () => {
    hubspot.clearRequests();
    await world.write();
    for (const p of people) expect(propsOf(p.id)).toEqual(world.urls(token.get(p.id)!));
    for (const s of strangers) expect(propsOf(s.id)).toEqual({ image: undefined, click: undefined });
    expect(batches().map((r) => (r.body as { inputs: unknown[] }).inputs.length)).toEqual([100, 20]);
    expect(await world.listed(sdr)).toMatchObject({
      status: 'ready',
      targets_written: 120,
      targets_pending: 0,
      targets_failed: 0,
      last_error: null,
    });
  });

  it('a second sync and run send nothing to HubSpot', async () => {
    await world.sync();
    hubspot.clearRequests();
    await world.write();
    expect(hubspot.requests).toEqual([]);
  });

  it('a contact whose prospect left gets the neutral pair; one on two cadences gets the other one', async () => {
    const [gone, moved] = [people[0]!, people[1]!];
    const later = await world.enrol(second, moved.properties.email!);
    await world.leave(first, gone.properties.email!);
    await world.leave(first, moved.properties.email!);
    hubspot.clearRequests();
    await world.write();
    expect(propsOf(gone.id)).toEqual(world.neutral());
    expect(propsOf(moved.id)).toEqual(world.urls(later));
    expect(batches().map((r) => (r.body as { inputs: unknown[] }).inputs.length)).toEqual([2]);
  });

  it('TEN_SECONDLY_ROLLING 429s are waited out, and a contact deleted in HubSpot is set aside (207)', async () => {
    const more = Array.from({ length: 3 }, (_, i) => contact(200 + i));
    for (const p of more) token.set(p.id, await world.enrol(first, p.properties.email!));
    await world.sync();
    hubspot.archive('contacts', more[0]!.id);
    hubspot.setBurstLimit(1);
    slept.length = 0;
    hubspot.clearRequests();
    try {
      await world.write();
    } finally {
      hubspot.setBurstLimit(undefined);
    }
    expect(hubspot.requests.filter((r) => r.status === 429).length).toBeGreaterThan(0);
    expect(slept.length).toBeGreaterThan(0);
    expect(slept.every((ms) => ms === 10_000)).toBe(true);
    expect(batches().find((r) => r.status === 207)).toBeDefined();
    for (const p of more.slice(1)) expect(propsOf(p.id)).toEqual(world.urls(token.get(p.id)!));
    expect(await world.refusal(more[0]!.id)).toMatch(/no longer exists in HubSpot/);
    expect(await world.listed(sdr)).toMatchObject({ targets_failed: 1, last_error: null });
  });

  it('a property deleted in HubSpot stops the run with a clear error on the connection', async () => {
    hubspot.deleteProperty('rally_ad_click_url');
    const p = contact(300);
    await world.enrol(first, p.properties.email!);
    await world.sync();
    hubspot.clearRequests();
    await world.write();
    expect(batches()).toEqual([]);
    expect(await world.listed(sdr)).toMatchObject({
      status: 'error',
      last_error: expect.stringMatching(/HubSpot contact property "rally_ad_click_url" no longer exists/),
    });
    // "Create the fields for me" again mends it, and the run goes on.
    expect((await owner.post(`${base}/create`)).statusCode).toBe(200);
    await world.write();
    expect(propsOf(p.id).click).toMatch(/\/c$/);
    expect((await world.listed(sdr)).status).toBe('ready');
  });

  it('a connection without crm.objects.contacts.write is told to reconnect, and nothing is written', async () => {
    const readOnly = HUBSPOT_SCOPES.filter((s) => !s.endsWith('.write')).join(' ');
    await world.setCredentials(tokens(readOnly));
    const p = contact(301);
    await world.enrol(first, p.properties.email!);
    await world.sync();
    await world.write();
    expect(propsOf(p.id)).toEqual({ image: undefined, click: undefined });
    expect((await world.listed(sdr)).last_error).toMatch(
      /lacks the crm\.objects\.contacts\.write scope.*reconnects HubSpot in Settings › Connections/,
    );
  });

  it('without crm.schemas.contacts.write, "create" answers 422 with what to create in HubSpot', async () => {
    hubspot.deleteProperty('rally_ad_image_url');
    hubspot.deleteProperty('rally_ad_click_url');
    const refused = await owner.post(`${base}/create`);
    expect(refused.statusCode).toBe(422);
    expect(refused.json().message).toMatch(/lacks the crm\.schemas\.contacts\.write scope/);
    expect(refused.json().instructions).toMatch(/Settings › Data Management › Properties/);
    expect(hubspot.customProperties.has('rally_ad_image_url')).toBe(false);
  });
});
