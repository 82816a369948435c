import { and, asc, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import {
  cadences,
  crmAccounts,
  crmActivityCounts,
  crmContacts,
  crmListMembers,
  crmStages,
  integrations,
  opportunities,
  opportunityStageHistory,
  prospects,
  targets,
} from '../../../../db/schema/index.ts';
import { createTestApp, waitFor } from '../../../../../test/helpers.ts';
import type { Browser } from '../../../../../test/http.ts';
import { makeClient, signedIn } from '../../../../../test/http.ts';
import { smallPortal, startFakeHubSpot } from '../../../../../test/fakes/hubspot.ts';
import type { FakeHubSpot } from '../../../../../test/fakes/hubspot.ts';
import { createSecretBox } from '../../../../lib/crypto.ts';
import { storedContactsSince } from '../../sync.ts';
import { HUBSPOT_REVOKED_MESSAGE } from './adapter.ts';

/**
 * HubSpot against the in-repo fake on loopback (API-NOTES.md §4): the OAuth connection through the
 * real redirect and callback, the first sync through the job queue, then syncs by hand: incremental,
 * an access token expiring mid-sync (refresh), a 429 TEN_SECONDLY_ROLLING mid-sync, the app
 * uninstalled (inactive with the reason), disconnect with revocation.
 */
let app: FastifyInstance;
let fake: FakeHubSpot;
let clientId: string;
let other: string;
let owner: Browser;
let sdr: Browser;
const PUBLIC_URL = 'http://localhost:3997';

beforeAll(async () => {
  fake = await startFakeHubSpot({ seed: smallPortal() });
  app = await createTestApp({
    env: {
      PUBLIC_URL,
      HUBSPOT_CLIENT_ID: fake.clientId,
      HUBSPOT_CLIENT_SECRET: fake.clientSecret,
      HUBSPOT_API_URL: fake.apiUrl,
      HUBSPOT_AUTH_URL: fake.authUrl,
    },
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

const connectionOf = async (client = clientId) =>
  (
    await app.db
      .select()
      .from(integrations)
      .where(and(eq(integrations.clientId, client), eq(integrations.source, 'hubspot')))
  )[0];
const n = async (
  table:
    | typeof crmStages
    | typeof opportunities
    | typeof opportunityStageHistory
    | typeof crmContacts
    | typeof crmAccounts
    | typeof crmListMembers,
) => (await app.db.select({ n: count() }).from(table).where(eq(table.clientId, clientId)))[0]!.n;

/** Walks the OAuth redirects as a browser would: our redirect call, the consent, our callback. */
async function connect(browser: Browser, client = clientId) {
  const start = await browser.get(
    `/v1/integration/crm/hubspot/client/${client}/redirect?return_to=integration`,
    {
      clientId: client,
    },
  );
  expect(start.statusCode).toBe(200);
  const url = new URL(start.json().redirect_url);
  expect(`${url.origin}${url.pathname}`).toBe(`${fake.authUrl}/oauth/authorize`);
  expect(url.searchParams.get('scope')).toContain('crm.objects.deals.read');
  const consent = await fetch(url, { redirect: 'manual' });
  expect(consent.status).toBe(302);
  const back = new URL(consent.headers.get('location')!);
  expect(`${back.origin}${back.pathname}`).toBe(`${PUBLIC_URL}/v1/integration/crm/hubspot/callback`);
  return browser.get(`${back.pathname}${back.search}`, { clientId: null });
}

describe('HubSpot connection and sync (issue 16)', () => {
  it('connects through OAuth and the first sync brings in pipelines, owners, companies, contacts, deals, history and lists', async () => {
    const done = await connect(owner);
    expect(done.statusCode).toBe(302);
    expect(done.headers.location).toBe(
      `/settings/integrations/hubspot?client_id=${clientId}&connected=hubspot`,
    );
    const row = await connectionOf();
    expect(row).toMatchObject({ isActive: true, accountName: 'fake-portal.hubspot.example' });
    expect(row!.credentialsEnc).toMatch(/^v1\./);

    const synced = await waitFor(async () => {
      const i = await connectionOf();
      return i && !i.isSyncing && i.lastSyncedAt ? i : null;
    });
    expect(synced.lastError).toBeNull();
    // Records were read by search, oldest modified first.
    const searches = fake.requests.filter((r) => r.path.endsWith('/search') && r.path.includes('/objects/'));
    expect(searches.length).toBeGreaterThanOrEqual(3);
    expect(searches[0]!.body).toMatchObject({ sorts: [{ direction: 'ASCENDING' }] });

    const stages = await app.db
      .select()
      .from(crmStages)
      .where(eq(crmStages.clientId, clientId))
      .orderBy(asc(crmStages.pipelineKey), asc(crmStages.sortOrder));
    expect(stages).toHaveLength(8);
    expect(stages.find((s) => s.key === 'closedwon')).toMatchObject({
      pipelineKey: 'default',
      pipelineLabel: 'Sales Pipeline',
      probability: 100,
      isClosed: true,
      isWon: true,
    });
    expect(stages.find((s) => s.key === 'closedlost')).toMatchObject({ isClosed: true, isWon: false });
    expect(stages.find((s) => s.key === 'qualifiedtobuy')!.probability).toBe(40);

    expect(await n(crmAccounts)).toBe(3);
    expect(await n(crmContacts)).toBe(6);
    const opps = await app.db.select().from(opportunities).where(eq(opportunities.clientId, clientId));
    expect(opps).toHaveLength(5);
    const won = opps.find((o) => o.name === 'Globex platform')!;
    expect(won).toMatchObject({
      stage: 'Closed Won',
      isClosed: true,
      isWon: true,
      amountCents: 4_800_000,
      closeDate: '2026-03-31',
      accountName: 'Globex',
    });
    expect(won.stageId).toBe(stages.find((s) => s.key === 'closedwon')!.id);
    expect(opps.find((o) => o.name === 'Initech pilot')!.amountCents).toBe(1_250_050);
    expect(opps.find((o) => o.name === 'Inbound lead')).toMatchObject({ amountCents: 0, closeDate: null });
    const renewal = opps.find((o) => o.name === 'Globex renewal')!;
    expect(renewal.stageId).toBe(stages.find((s) => s.key === '1001')!.id);

    const moves = await app.db
      .select()
      .from(opportunityStageHistory)
      .where(eq(opportunityStageHistory.opportunityId, won.id))
      .orderBy(asc(opportunityStageHistory.changedAt));
    expect(moves.map((m) => [m.fromStage, m.toStage])).toEqual([
      [null, 'appointmentscheduled'],
      ['appointmentscheduled', 'qualifiedtobuy'],
      ['qualifiedtobuy', 'contractsent'],
      ['contractsent', 'closedwon'],
    ]);
    // 4 + 2 + 2 + 1 + 1 moves over the five deals.
    expect(await n(opportunityStageHistory)).toBe(10);

    // Issue 42 item 7: the opportunity opens its deal in HubSpot (the portal's id from the token).
    const detail = await owner.get(`/v1/report/client/${clientId}/opportunity/${won.id}`);
    expect(detail.statusCode, detail.body).toBe(200);
    expect(detail.json().crm_record).toEqual({
      url: `https://app.hubspot.com/contacts/${fake.hubId}/record/0-3/${won.externalId}`,
      vendor: 'HubSpot',
    });

    const lists = (await owner.get(`/v1/integration/crm/hubspot/client/${clientId}/lists`)).json();
    expect(lists.items.map((l: { name: string }) => l.name).sort()).toEqual([
      'Customers (dynamic)',
      'Webinar attendees',
    ]);
    expect(await n(crmListMembers)).toBe(5);

    const settings = (await sdr.get(`/v1/integration/crm/hubspot/client/${clientId}/settings`)).json();
    expect(settings).toMatchObject({
      source: 'hubspot',
      counts: { stages: 8, owners: 2, accounts: 3, contacts: 6, opportunities: 5, lists: 2 },
    });
    expect(settings.integration).toMatchObject({ is_active: true, is_syncing: false });
  });

  it('an incremental sync searches for records modified since the last one and stores a stage move once', async () => {
    const before = { opps: await n(opportunities), history: await n(opportunityStageHistory) };
    const pilot = fake.objects('deals').find((d) => d.properties.dealname === 'Initech pilot')!;
    fake.update('deals', pilot.id, { dealstage: 'presentationscheduled' });
    fake.clearRequests();
    await app.crmSync.run({ integrationId: (await connectionOf())!.id });
    const dealSearch = fake.requests.find((r) => r.path === '/crm/v3/objects/deals/search')!;
    expect(dealSearch.body).toMatchObject({
      filterGroups: [{ filters: [{ propertyName: 'hs_lastmodifieddate', operator: 'GTE' }] }],
    });
    const [row] = await app.db.select().from(opportunities).where(eq(opportunities.externalId, pilot.id));
    expect(row).toMatchObject({ stage: 'Presentation Scheduled', probability: 60 });
    expect(await n(opportunities)).toBe(before.opps);
    expect(await n(opportunityStageHistory)).toBe(before.history + 1);
    await app.crmSync.run({ integrationId: (await connectionOf())!.id });
    expect(await n(opportunityStageHistory)).toBe(before.history + 1);
  });

  it('a deal deleted in HubSpot (archived) is marked deleted by the next sync and leaves the reports', async () => {
    const id = (await connectionOf())!.id;
    const nowS = Math.floor(Date.now() / 1000);
    const report = async () =>
      (
        await owner.get(
          `/v1/report/client/${clientId}/opportunity?from=${nowS - 30 * 86_400}&to=${nowS + 86_400}&filter=all&page_size=200`,
        )
      ).json() as { items: { name: string }[]; total: number };
    const before = await report();
    expect(before.items.map((o) => o.name)).toContain('Umbrella expansion');
    const umbrella = fake.objects('deals').find((d) => d.properties.dealname === 'Umbrella expansion')!;
    fake.archive('deals', umbrella.id);
    fake.clearRequests();
    await app.crmSync.run({ integrationId: id });
    // Search never returns archived records: they are read from the recycling bin's listing.
    expect(fake.requests).toContainEqual(
      expect.objectContaining({
        method: 'GET',
        path: '/crm/v3/objects/deals',
        query: expect.objectContaining({ archived: 'true' }),
        status: 200,
      }),
    );
    const after = await report();
    expect(after.total).toBe(before.total - 1);
    expect(after.items.map((o) => o.name)).not.toContain('Umbrella expansion');
    const deleted = async () =>
      (
        await app.db
          .select({ isDeleted: opportunities.isDeleted })
          .from(opportunities)
          .where(and(eq(opportunities.integrationId, id), eq(opportunities.externalId, umbrella.id)))
      )[0]?.isDeleted;
    expect(await deleted()).toBe(true);
    const settings = (await owner.get(`/v1/integration/crm/hubspot/client/${clientId}/settings`)).json();
    expect(settings.counts.opportunities).toBe(4);
    // Again: it stays deleted, and the row is kept (history, a restore in HubSpot).
    await app.crmSync.run({ integrationId: id });
    expect(await deleted()).toBe(true);
    expect(await n(opportunities)).toBe(5);
  });

  it('a contact and a company deleted in HubSpot (archived) are marked deleted by the next sync and leave the counts; restored, they count again', async () => {
    const id = (await connectionOf())!.id;
    const [webinar] = (await owner.get(`/v1/integration/crm/hubspot/client/${clientId}/lists`))
      .json()
      .items.filter((l: { name: string }) => l.name === 'Webinar attendees');
    const estimate = async () =>
      (
        await sdr.post(`/v1/integration/crm/hubspot/client/${clientId}/audience/estimate`, {
          list_ids: [webinar.id],
        })
      ).json() as { contacts: number; accounts: number };
    const cohortEstimate = async () =>
      (
        await owner.post(`/v1/marx/client/${clientId}/cohort/pre_sync`, {
          source_kind: 'crm_list',
          crm_list_id: webinar.id,
        })
      ).json() as { contacts: number; accounts: number };
    // Ann (Globex), Cy (Initech) and Ed (Umbrella).
    expect(await estimate()).toMatchObject({ contacts: 3, accounts: 3 });
    expect(await cohortEstimate()).toEqual({ contacts: 3, accounts: 3 });

    const ed = fake.objects('contacts').find((c) => c.properties.email === 'ed@umbrella.example')!;
    const initech = fake.objects('companies').find((c) => c.properties.name === 'Initech')!;
    fake.archive('contacts', ed.id);
    fake.archive('companies', initech.id);
    fake.clearRequests();
    await app.crmSync.run({ integrationId: id });
    // Search never returns archived records: each type's recycling bin is read whole.
    for (const type of ['contacts', 'companies']) {
      expect(fake.requests).toContainEqual(
        expect.objectContaining({
          method: 'GET',
          path: `/crm/v3/objects/${type}`,
          query: expect.objectContaining({ archived: 'true' }),
          status: 200,
        }),
      );
    }
    const deleted = async () => ({
      contacts: (
        await app.db
          .select({ ext: crmContacts.externalId })
          .from(crmContacts)
          .where(and(eq(crmContacts.integrationId, id), eq(crmContacts.isDeleted, true)))
      ).map((r) => r.ext),
      accounts: (
        await app.db
          .select({ ext: crmAccounts.externalId })
          .from(crmAccounts)
          .where(and(eq(crmAccounts.integrationId, id), eq(crmAccounts.isDeleted, true)))
      ).map((r) => r.ext),
    });
    expect(await deleted()).toEqual({ contacts: [ed.id], accounts: [initech.id] });
    const settings = (await owner.get(`/v1/integration/crm/hubspot/client/${clientId}/settings`)).json();
    expect(settings.counts).toMatchObject({ accounts: 2, contacts: 5 });
    // Ed is gone; Cy stays, without the deleted Initech.
    expect(await estimate()).toMatchObject({ contacts: 2, accounts: 1 });
    expect(await cohortEstimate()).toEqual({ contacts: 2, accounts: 1 });
    // Again: they stay deleted, and the rows are kept (list members, a restore in HubSpot).
    await app.crmSync.run({ integrationId: id });
    expect(await deleted()).toEqual({ contacts: [ed.id], accounts: [initech.id] });
    expect(await n(crmContacts)).toBe(6);
    expect(await n(crmAccounts)).toBe(3);
    // Restored from the recycling bin: search finds them modified, and they are live again.
    fake.restore('contacts', ed.id);
    fake.restore('companies', initech.id);
    await app.crmSync.run({ integrationId: id });
    expect(await deleted()).toEqual({ contacts: [], accounts: [] });
    expect(await estimate()).toMatchObject({ contacts: 3, accounts: 3 });
  }, 180_000);

  it('activity totals: calls, e-mails, meetings and tasks per contact, kept right as activities come and go', async () => {
    const id = (await connectionOf())!.id;
    const [ana, ben] = fake.objects('contacts');
    const call = fake.addActivity('calls', ana!.id);
    const lastCall = fake.addActivity('calls', ana!.id);
    fake.addActivity('emails', ana!.id);
    fake.addActivity('meetings', ben!.id);
    const task = fake.addActivity('tasks', ben!.id);
    const totals = async () =>
      (
        await app.db
          .select({
            contact: crmActivityCounts.contactExternalId,
            type: crmActivityCounts.activityType,
            count: crmActivityCounts.count,
            last: crmActivityCounts.lastActivityAt,
            linked: crmActivityCounts.contactId,
          })
          .from(crmActivityCounts)
          .where(eq(crmActivityCounts.integrationId, id))
          .orderBy(asc(crmActivityCounts.contactExternalId), asc(crmActivityCounts.activityType))
      ).map((r) => ({ ...r, last: r.last?.toISOString() ?? null, linked: r.linked !== null }));

    fake.clearRequests();
    await app.crmSync.run({ integrationId: id });
    // Found through the contacts' associations, in HubSpot's words mapped to the CRM-neutral names.
    expect(fake.requests.some((r) => r.path === '/crm/v4/associations/contacts/calls/batch/read')).toBe(true);
    expect(await totals()).toEqual([
      { contact: ana!.id, type: 'Call', count: 2, last: lastCall.properties.hs_timestamp, linked: true },
      { contact: ana!.id, type: 'Email', count: 1, last: expect.any(String), linked: true },
      { contact: ben!.id, type: 'Meeting', count: 1, last: expect.any(String), linked: true },
      { contact: ben!.id, type: 'Task', count: 1, last: task.properties.hs_timestamp, linked: true },
    ]);

    // A call and the only task are deleted, an e-mail to Ben is logged: the totals follow.
    fake.removeActivity('calls', call.id);
    fake.removeActivity('tasks', task.id);
    fake.addActivity('emails', ben!.id);
    await app.crmSync.run({ integrationId: id });
    const after = await totals();
    expect(after.map((r) => [r.contact, r.type, r.count])).toEqual([
      [ana!.id, 'Call', 1],
      [ana!.id, 'Email', 1],
      [ben!.id, 'Email', 1],
      [ben!.id, 'Meeting', 1],
    ]);
    // Running again changes nothing.
    await app.crmSync.run({ integrationId: id });
    expect(await totals()).toEqual(after);
    // The activity types are offered for the outreach and meeting definitions, with their totals.
    const offered = (await owner.get(`/v1/integration/crm/hubspot/client/${clientId}/outreach`)).json() as {
      available: { type: string; total: number }[];
    };
    expect(offered.available.map((a) => [a.type, a.total]).sort()).toEqual([
      ['Call', 1],
      ['Email', 2],
      ['Meeting', 1],
    ]);
  });

  it('refreshes an expired token mid-sync and waits out a 429 TEN_SECONDLY_ROLLING', async () => {
    const id = (await connectionOf())!.id;
    const sealedBefore = (await connectionOf())!.credentialsEnc;
    const globex = fake.objects('companies')[0]!;
    fake.update('companies', globex.id, { name: 'Globex Corporation' });
    fake.clearRequests();
    fake.afterCalls(3, () => fake.expireAccessTokens());
    fake.afterCalls(6, () => fake.failWithRateLimit(2));
    await app.crmSync.run({ integrationId: id });
    expect(fake.requests.some((r) => r.status === 401)).toBe(true);
    expect(fake.requests.filter((r) => r.path === '/oauth/2026-03/token')).toHaveLength(1);
    expect(fake.requests.filter((r) => r.status === 429)).toHaveLength(2);
    const row = (await connectionOf())!;
    expect(row).toMatchObject({ isActive: true, isSyncing: false, lastError: null });
    expect(row.credentialsEnc).not.toBe(sealedBefore);
    const [account] = await app.db.select().from(crmAccounts).where(eq(crmAccounts.externalId, globex.id));
    expect(account!.name).toBe('Globex Corporation');
  });

  it('write-back (on): superprospects get Rally contact properties, created once, set in batches', async () => {
    const id = (await connectionOf())!.id;
    const [file] = await app.db.insert(integrations).values({ clientId, source: 'fileforce' }).returning();
    const [prospect] = await app.db
      .insert(prospects)
      .values({ clientId, integrationId: file!.id, externalId: 'ann', email: 'ann@globex.example' })
      .returning();
    const [cadence] = await app.db
      .insert(cadences)
      .values({ clientId, integrationId: file!.id, externalId: 'c1', name: 'Outbound' })
      .returning();
    await app.db.insert(targets).values({
      clientId,
      cadenceId: cadence!.id,
      prospectId: prospect!.id,
      impressions: 20,
      clicks: 2,
      superDate: new Date(Date.now() - 86_400_000),
    });
    const ann = fake.objects('contacts').find((c) => c.properties.email === 'ann@globex.example')!;
    // Changed in HubSpot: the next sync reads it again and matches it to the prospect by e-mail.
    fake.update('contacts', ann.id, { jobtitle: 'CTO' });
    const settingsUrl = `/v1/integration/crm/hubspot/client/${clientId}/settings`;
    expect((await owner.post(settingsUrl, { write_back: true })).statusCode).toBe(200);
    await app.crmSync.run({ integrationId: id });
    expect(await connectionOf()).toMatchObject({ isActive: true, lastError: null });
    expect([...fake.customProperties.keys()].sort()).toEqual([
      'rally_clicks',
      'rally_impressions',
      'rally_superprospect_date',
    ]);
    expect(ann.properties).toMatchObject({ rally_impressions: '20', rally_clicks: '2' });
    expect(fake.batchUpdates()).toBe(1);
    // Again: the properties are not created twice (HubSpot would answer 409), the values stay.
    await app.crmSync.run({ integrationId: id });
    expect(await connectionOf()).toMatchObject({ lastError: null });
    expect(fake.customProperties.size).toBe(3);
    expect(ann.properties.rally_impressions).toBe('20');
    await owner.post(settingsUrl, { write_back: false });
  });

  it('the app uninstalled mid-sync makes the connection inactive with the reason', async () => {
    const id = (await connectionOf())!.id;
    fake.afterCalls(2, () => {
      fake.revokeAccess();
      fake.expireAccessTokens();
    });
    await app.crmSync.run({ integrationId: id });
    expect(await connectionOf()).toMatchObject({
      isActive: false,
      isSyncing: false,
      lastError: HUBSPOT_REVOKED_MESSAGE,
    });
    const settings = (await owner.get(`/v1/integration/crm/hubspot/client/${clientId}/settings`)).json();
    expect(settings.integration).toMatchObject({ is_active: false, last_error: HUBSPOT_REVOKED_MESSAGE });
  });

  it('reconnect, then disconnect: the refresh token is deleted at HubSpot and forgotten; the data stays', async () => {
    expect((await connect(owner)).headers.location).toMatch(/connected=hubspot/);
    await waitFor(async () => {
      const i = await connectionOf();
      return i && i.isActive && !i.isSyncing ? i : null;
    });
    fake.clearRequests();
    const res = await owner.delete(`/v1/integration/crm/hubspot/client/${clientId}/settings`);
    expect(res.statusCode).toBe(204);
    // The date-versioned revoke (issue 40 item 4): the v1 DELETE is deprecated.
    expect(fake.requests).toContainEqual(
      expect.objectContaining({ method: 'POST', status: 200, path: '/oauth/2026-03/token/revoke' }),
    );
    expect(fake.revocations()).toBe(1);
    expect(await connectionOf()).toMatchObject({ isActive: false, credentialsEnc: null });
    expect(await n(opportunities)).toBe(5);
  });

  it('a disconnect made while a sync runs stays: inactive, no credentials, its message, not syncing', async () => {
    expect((await connect(owner)).headers.location).toMatch(/connected=hubspot/);
    const id = (
      await waitFor(async () => {
        const i = await connectionOf();
        return i && i.isActive && !i.isSyncing ? i : null;
      })
    ).id;
    await app.db.update(integrations).set({ syncCursor: {} }).where(eq(integrations.id, id));
    let disconnected: Promise<number> | undefined;
    fake.afterCalls(2, () => {
      disconnected = owner
        .delete(`/v1/integration/crm/hubspot/client/${clientId}/settings`)
        .then((res) => res.statusCode);
    });
    // The sync reads on with the token it holds; it may end or fail, but not over the disconnect.
    await app.crmSync.run({ integrationId: id }).catch(() => undefined);
    expect(await disconnected).toBe(204);
    expect(await connectionOf()).toMatchObject({
      isActive: false,
      credentialsEnc: null,
      isSyncing: false,
      lastError: 'Disconnected. Connect again to resume syncing.',
    });
  });

  it('a denied consent comes back with the reason; an SDR may not connect; another client sees nothing', async () => {
    fake.denyNextConsent();
    const res = await connect(owner);
    expect(new URL(String(res.headers.location), PUBLIC_URL).searchParams.get('connect_error')).toMatch(
      /HubSpot did not grant access \(access_denied\)/,
    );
    expect((await sdr.get(`/v1/integration/crm/hubspot/client/${clientId}/redirect`)).statusCode).toBe(403);
    const theirs = (
      await owner.get(`/v1/integration/crm/hubspot/client/${other}/settings`, { clientId: other })
    ).json();
    expect(theirs).toMatchObject({ integration: null, counts: { opportunities: 0 } });
  });
});

describe('HubSpot requests of a list sync (issue 18)', () => {
  it('reads each contact once: the activities phase counts the contacts the contacts phase stored, without a second search', async () => {
    // A portal of its own: the small portal plus 450 contacts, all in one static list, so 456
    // contacts are three search pages of 200.
    const listFake = await startFakeHubSpot({ seed: smallPortal() });
    try {
      const contacts = Array.from({ length: 450 }, (_, i) => ({
        properties: {
          email: `member${i}@list.example`,
          firstname: `Member${i}`,
          lastname: 'Listed',
          jobtitle: 'Buyer',
        },
      }));
      listFake.seed({ contacts, lists: [{ name: 'Trade show', contactIndexes: contacts.map((_, i) => i) }] });
      const [ann] = listFake.objects('contacts');
      listFake.addActivity('calls', ann!.id);
      const live = listFake.objects('contacts').length;
      expect(live).toBe(456);
      const listApp = await createTestApp({
        workers: false,
        env: {
          HUBSPOT_CLIENT_ID: listFake.clientId,
          HUBSPOT_CLIENT_SECRET: listFake.clientSecret,
          HUBSPOT_API_URL: listFake.apiUrl,
          HUBSPOT_AUTH_URL: listFake.authUrl,
        },
      });
      const adapter = listApp.crmSync.adapters.hubspot!;
      const redirectUri = 'http://localhost/callback';
      const consent = await fetch(adapter.authorizeUrl!({ state: 'test', redirectUri }), {
        redirect: 'manual',
      });
      const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
      const creds = await adapter.exchangeCode!({ code, redirectUri });
      const client = await makeClient(listApp, 'Lists');
      const [integration] = await listApp.db
        .insert(integrations)
        .values({
          clientId: client,
          source: 'hubspot',
          credentialsEnc: createSecretBox(listApp.config.appSecret).encrypt(JSON.stringify(creds)),
        })
        .returning({ id: integrations.id });

      listFake.clearRequests();
      await listApp.crmSync.run({ integrationId: integration!.id });
      const [row] = await listApp.db.select().from(integrations).where(eq(integrations.id, integration!.id));
      expect(row).toMatchObject({ lastError: null, isActive: true });
      const calls = (path: string) => listFake.requests.filter((r) => r.path === path).length;
      // Contacts are searched by the contacts phase: ceil(456 / 200) = 3 pages (the activities
      // phase used to search them all again: 6), and once for contacts that merged others (issue 40).
      const searches = listFake.requests.filter((r) => r.path === '/crm/v3/objects/contacts/search');
      expect(searches).toHaveLength(4);
      expect(searches.filter((r) => JSON.stringify(r.body).includes('hs_merged_object_ids'))).toHaveLength(1);
      // The activities phase: one association read per activity type for up to 1,000 stored
      // contacts (it used to be one per type and search page of 200: 12), and Ann's call read once.
      for (const type of ['calls', 'emails', 'meetings', 'tasks']) {
        expect(calls(`/crm/v4/associations/contacts/${type}/batch/read`)).toBe(1);
      }
      expect(calls('/crm/v3/objects/calls/batch/read')).toBe(1);
      // The whole first sync: 3 contact searches, 4 associations and 1 call read for the contacts
      // and their activities; 18 for the rest (pipelines 2, owners 2, companies search 1, deals
      // search 2 with 2 association reads and 1 history read, archived listings 3, lists search 1,
      // memberships 4: the three lists, 250 a page), and 3 searches for merged records (issue 40).
      // With the second search it was 37.
      expect(listFake.requests).toHaveLength(29);
      const stored = await listApp.db
        .select({ n: count() })
        .from(crmActivityCounts)
        .where(and(eq(crmActivityCounts.integrationId, integration!.id), eq(crmActivityCounts.count, 1)));
      expect(stored[0]!.n).toBe(1);
      const members = await listApp.db
        .select({ n: count() })
        .from(crmListMembers)
        .where(eq(crmListMembers.clientId, client));
      expect(members[0]!.n).toBe(455);
      // The stored contacts in smaller pages: each once, oldest first, ties broken by id (the
      // seeded contacts share their modified time), and a cursor leaves the older ones out.
      const pages: { externalId: string; updatedAt: string }[][] = [];
      for await (const page of storedContactsSince(listApp.db, integration!.id, null, 200)) {
        expect(page.total).toBe(456);
        pages.push(page.items);
      }
      expect(pages.map((p) => p.length)).toEqual([200, 200, 56]);
      const all = pages.flat();
      expect(new Set(all.map((c) => c.externalId)).size).toBe(456);
      const order = all.map((c) => `${c.updatedAt} ${c.externalId}`);
      expect(order).toEqual([...order].sort());
      const since = all[300]!.updatedAt;
      let newer = 0;
      for await (const page of storedContactsSince(listApp.db, integration!.id, since, 200)) {
        newer += page.items.length;
        expect(page.items.every((c) => c.updatedAt >= since)).toBe(true);
      }
      expect(newer).toBe(all.filter((c) => c.updatedAt >= since).length);
    } finally {
      await listFake.close();
    }
  });
});

describe('HubSpot not set up', () => {
  it("connect answers 400 in the user's words when HUBSPOT_CLIENT_ID is unset (issue 42 item 3: the variable goes to the log and the README)", async () => {
    const bare = await createTestApp();
    const c = await makeClient(bare, 'Bare');
    const { browser } = await signedIn(bare, { [c]: 'purple_owner' });
    const res = await browser.get(`/v1/integration/crm/hubspot/client/${c}/redirect`);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(
      'HubSpot is not available on this installation — ask your administrator.',
    );
  });
});
