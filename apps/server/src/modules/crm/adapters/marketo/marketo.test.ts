import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { crmContacts, crmListMembers, crmLists, integrations } from '../../../../db/schema/index.ts';
import { createTestApp, waitFor } from '../../../../../test/helpers.ts';
import { Browser, makeClient, signedIn } from '../../../../../test/http.ts';
import { smallSubscription, startFakeMarketo } from '../../../../../test/fakes/marketo.ts';
import type { FakeMarketo } from '../../../../../test/fakes/marketo.ts';
import { MARKETO_REVOKED_MESSAGE } from './adapter.ts';

/**
 * Marketo against the in-repo fake on loopback (API-NOTES.md §6): connecting with an API user's
 * client id, secret and REST base URL (checked before storing), the first sync through the job
 * queue, an incremental one, a token expiring mid-sync (602 in a 200: a new token), 606/615
 * mid-sync (waited out), the API user removed (inactive with the reason), and the route's refusals.
 */
let app: FastifyInstance;
let fake: FakeMarketo;
let clientId: string;
let other: string;
let owner: Browser;
let sdr: Browser;

beforeAll(async () => {
  fake = await startFakeMarketo({ seed: smallSubscription() });
  app = await createTestApp({
    adapters: { retry: { baseDelayMs: 1, maxDelayMs: 5, sleep: async () => {} } },
  });
  clientId = await makeClient(app, 'Acme');
  other = await makeClient(app, 'Other');
  owner = (await signedIn(app, { [clientId]: 'purple_owner', [other]: 'purple_owner' })).browser;
  sdr = (await signedIn(app, { [clientId]: 'yellow_sdr' })).browser;
});
afterAll(async () => {
  await fake?.close();
});

const url = (client = clientId) => `/v1/integration/crm/marketo/client/${client}/connection`;
const body = () => ({
  client_id: fake.clientId,
  client_secret: fake.clientSecret,
  rest_base_url: fake.restUrl,
});
const connectionOf = async (client = clientId) =>
  (
    await app.db
      .select()
      .from(integrations)
      .where(and(eq(integrations.clientId, client), eq(integrations.source, 'marketo')))
  )[0];
const n = async (table: typeof crmContacts | typeof crmLists | typeof crmListMembers) =>
  (await app.db.select({ n: count() }).from(table).where(eq(table.clientId, clientId)))[0]!.n;

describe('Marketo connection and sync (issue 16)', () => {
  it('refuses bad input (422 naming the field), wrong credentials (422) and an unreachable Marketo (502), storing nothing', async () => {
    const missing = await owner.post(url(), { ...body(), client_secret: '' });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().errors[0].field).toBe('body.client_secret');
    const badUrl = await owner.post(url(), { ...body(), rest_base_url: 'ftp://x' });
    expect(badUrl.json().errors[0].field).toBe('body.rest_base_url');

    const wrong = await owner.post(url(), { ...body(), client_secret: 'not-the-secret' });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().errors[0]).toMatchObject({ field: 'body.client_secret' });

    const down = await owner.post(url(), { ...body(), rest_base_url: 'http://127.0.0.1:9/rest' });
    expect(down.statusCode).toBe(502);
    expect(down.json().message).toMatch(/^Marketo could not be reached at 127\.0\.0\.1:9/);
    expect(await connectionOf()).toBeUndefined();

    expect((await sdr.post(url(), body())).statusCode).toBe(403);
    expect((await new Browser(app).get(url(), { clientId })).statusCode).toBe(401);
    expect((await owner.get(url(other))).statusCode).toBe(403);
    expect((await sdr.get(url())).json()).toEqual({
      source: 'marketo',
      rest_base_url: null,
      client_id_hint: null,
      integration: null,
    });
  });

  it('connects with valid credentials (sealed) and the first sync brings in static lists and their leads', async () => {
    const res = await owner.post(url(), { ...body(), rest_base_url: `${fake.restUrl}/` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      rest_base_url: fake.restUrl,
      client_id_hint: `…${fake.clientId.slice(-4)}`,
      integration: { source: 'marketo', is_active: true },
    });
    expect(JSON.stringify(res.json())).not.toContain(fake.clientSecret);
    const row = await connectionOf();
    expect(row!.credentialsEnc).toMatch(/^v1\./);
    expect(row!.credentialsEnc).not.toContain(fake.clientSecret);

    const synced = await waitFor(async () => {
      const i = await connectionOf();
      return i && !i.isSyncing && i.lastSyncedAt ? i : null;
    });
    expect(synced.lastError).toBeNull();
    expect(await n(crmLists)).toBe(3);
    // Every lead is in the newsletter list: 8 contacts, 4 + 8 memberships.
    expect(await n(crmContacts)).toBe(8);
    expect(await n(crmListMembers)).toBe(12);
    const lists = (
      await sdr.get(`/v1/integration/crm/marketo/client/${clientId}/lists?search=webinar`)
    ).json();
    expect(lists.items).toEqual([expect.objectContaining({ kind: 'static_list' })]);
    const settings = (await sdr.get(`/v1/integration/crm/marketo/client/${clientId}/settings`)).json();
    expect(settings.counts).toMatchObject({ contacts: 8, lists: 3, opportunities: 0 });
  });

  it('a later sync sees a changed lead and a new member; a token expiring mid-sync is renewed; 606/615 are waited out', async () => {
    const id = (await connectionOf())!.id;
    const ann = fake.leads[0]!;
    fake.updateLead(ann.id, { title: 'Chief Technology Officer' });
    const webinar = fake.lists.find((l) => l.name.startsWith('Webinar'))!;
    fake.changeMembers(webinar.id, [fake.leads[1]!.id]);
    fake.clearRequests();
    fake.afterCalls(2, () => fake.expireTokens());
    fake.afterCalls(4, () => {
      fake.failWithRateLimit(1);
      fake.failWithConcurrency(1);
    });
    await app.crmSync.run({ integrationId: id });
    expect(fake.requests.filter((r) => r.code === '602')).toHaveLength(1);
    expect(fake.requests.filter((r) => r.code === '606' || r.code === '615')).toHaveLength(2);
    expect(fake.requests.filter((r) => r.path === '/identity/oauth/token')).toHaveLength(1);
    expect(await connectionOf()).toMatchObject({ isActive: true, lastError: null });
    const [contact] = await app.db
      .select()
      .from(crmContacts)
      .where(eq(crmContacts.externalId, String(ann.id)));
    expect(contact!.title).toBe('Chief Technology Officer');
    expect(await n(crmListMembers)).toBe(13);
  });

  it('a lead deleted in Marketo is marked deleted by the next sync (its Delete Lead activity) and leaves the counts', async () => {
    const id = (await connectionOf())!.id;
    const contacts = async () =>
      (await sdr.get(`/v1/integration/crm/marketo/client/${clientId}/settings`)).json().counts.contacts;
    expect(await contacts()).toBe(8);
    const fay = fake.leads.find((l) => l.email === 'fay@gmail.example')!;
    fake.deleteLead(fay.id);
    fake.clearRequests();
    await app.crmSync.run({ integrationId: id });
    // The paging token just before the deleted leads' page (the list and lead changes have their own).
    const at = fake.requests.findIndex((r) => r.path === '/rest/v1/activities/deletedleads.json');
    const token = fake.requests
      .slice(0, at)
      .findLast((r) => r.path === '/rest/v1/activities/pagingtoken.json');
    // From a day before the last sync: the overlap is marked again, harmlessly.
    expect(Date.parse(token!.query.sinceDatetime!)).toBeLessThan(Date.now() - 86_000_000);
    expect(fake.requests).toContainEqual(
      expect.objectContaining({ path: '/rest/v1/activities/deletedleads.json', status: 200 }),
    );
    const deleted = async () =>
      (
        await app.db
          .select({ isDeleted: crmContacts.isDeleted })
          .from(crmContacts)
          .where(and(eq(crmContacts.integrationId, id), eq(crmContacts.externalId, String(fay.id))))
      )[0]?.isDeleted;
    expect(await deleted()).toBe(true);
    expect(await contacts()).toBe(7);
    expect(await n(crmContacts)).toBe(8); // the row is kept
    await app.crmSync.run({ integrationId: id });
    expect(await deleted()).toBe(true);
  });

  it('the API user removed mid-sync makes the connection inactive with the reason', async () => {
    const id = (await connectionOf())!.id;
    fake.afterCalls(2, () => fake.revokeAccess());
    await app.crmSync.run({ integrationId: id });
    expect(await connectionOf()).toMatchObject({
      isActive: false,
      isSyncing: false,
      lastError: MARKETO_REVOKED_MESSAGE,
    });
    const state = (await sdr.get(url())).json();
    expect(state.integration).toMatchObject({ is_active: false, last_error: MARKETO_REVOKED_MESSAGE });
  });

  it('reconnects with new credentials, then disconnects: the credentials are forgotten, the data stays', async () => {
    const res = await owner.post(url(), body());
    expect(res.json().integration).toMatchObject({ is_active: true });
    await waitFor(async () => {
      const i = await connectionOf();
      return i && !i.isSyncing ? i : null;
    });
    expect((await owner.delete(`/v1/integration/crm/marketo/client/${clientId}/settings`)).statusCode).toBe(
      204,
    );
    expect(await connectionOf()).toMatchObject({ isActive: false, credentialsEnc: null });
    expect((await sdr.get(url())).json()).toMatchObject({ rest_base_url: null, client_id_hint: null });
    expect(await n(crmContacts)).toBe(8);
  });
});
