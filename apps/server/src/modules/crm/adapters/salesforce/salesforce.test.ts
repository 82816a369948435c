import { and, asc, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import {
  cadences,
  companies,
  crmIntegrationSettings,
  crmAccounts,
  crmActivityCounts,
  crmContacts,
  crmListMembers,
  crmRecordTypes,
  crmStages,
  integrations,
  opportunities,
  opportunityContacts,
  opportunityStageHistory,
  prospects,
  salesReps,
  targets,
} from '../../../../db/schema/index.ts';
import { createTestApp, waitFor } from '../../../../../test/helpers.ts';
import { Browser, makeClient, signedIn } from '../../../../../test/http.ts';
import { sfTime, smallOrg, startFakeSalesforce } from '../../../../../test/fakes/salesforce.ts';
import type { FakeSalesforce } from '../../../../../test/fakes/salesforce.ts';
import {
  SALESFORCE_API_DISABLED_MESSAGE,
  SALESFORCE_REVOKED_MESSAGE,
  createSalesforceAdapter,
} from './adapter.ts';
import type { Credentials } from '../../port.ts';

/**
 * Salesforce against the in-repo fake on loopback (API-NOTES.md §5): the OAuth connection through
 * the real redirect and callback, then syncs through the real job queue and by hand: first sync,
 * incremental sync, a session expiring mid-sync (refresh), REQUEST_LIMIT_EXCEEDED mid-sync, a
 * failure mid-sync then a finish with every row once, revoked access, disconnect with revocation.
 */
let app: FastifyInstance;
let fake: FakeSalesforce;
let clientId: string;
let other: string;
let owner: Browser;
let sdr: Browser;
const PUBLIC_URL = 'http://localhost:3998';
const ids: Record<string, string> = {};

function seedOrg(sf: FakeSalesforce) {
  const t = (daysAgo: number) => sfTime(new Date(Date.now() - daysAgo * 86_400_000));
  const maya = sf.records('User').find((u) => u.Email === 'maya@acme.example')!;
  const rt = sf.records('RecordType')[0]!;
  const bright = sf.add('Account', {
    Name: 'Brightline Freight',
    Website: 'brightline.example',
    OwnerId: maya.Id,
  });
  const cobalt = sf.add('Account', {
    Name: 'Cobalt Harbor',
    Website: 'https://cobalt.example',
    OwnerId: maya.Id,
  });
  const kendall = sf.add('Contact', {
    Email: 'KENDALL@brightline.example',
    FirstName: 'Kendall',
    LastName: 'Ellery',
    Title: 'Procurement Lead',
    AccountId: bright.Id,
    OwnerId: maya.Id,
  });
  const umber = sf.add('Contact', {
    Email: 'umber@cobalt.example',
    FirstName: 'Umber',
    LastName: 'B',
    AccountId: cobalt.Id,
  });
  const opp = (name: string, account: string, stage: string, extra: Record<string, unknown> = {}) =>
    sf.add('Opportunity', {
      Name: name,
      AccountId: account,
      OwnerId: maya.Id,
      StageName: stage,
      Amount: 12500.5,
      CloseDate: '2026-12-31',
      Probability: 10,
      IsClosed: false,
      IsWon: false,
      CreatedDate: t(40),
      ...extra,
    });
  const o1 = opp('Brightline - Fleet pilot', bright.Id, 'Prospecting');
  const o2 = opp('Cobalt - Renewal', cobalt.Id, 'Closed Won', {
    IsClosed: true,
    IsWon: true,
    Probability: 100,
    Amount: 80000,
  });
  const o3 = opp('Brightline - Expansion', bright.Id, 'Qualification', { RecordTypeId: rt.Id });
  sf.add('OpportunityContactRole', {
    OpportunityId: o1.Id,
    ContactId: kendall.Id,
    Role: 'Decision Maker',
    IsPrimary: true,
  });
  const history = (o: string, stage: string, daysAgo: number) =>
    sf.add('OpportunityHistory', { OpportunityId: o, StageName: stage, CreatedDate: t(daysAgo) });
  history(o1.Id, 'Prospecting', 40);
  history(o2.Id, 'Prospecting', 40);
  history(o2.Id, 'Proposal/Price Quote', 30);
  history(o2.Id, 'Proposal/Price Quote', 25); // an amount change: no stage move
  history(o2.Id, 'Closed Won', 20);
  history(o3.Id, 'Prospecting', 40);
  history(o3.Id, 'Qualification', 10);
  const camp = sf.add('Campaign', {
    Name: 'Webinar attendees',
    IsActive: true,
    NumberOfContacts: 2,
    NumberOfLeads: 0,
  });
  sf.add('CampaignMember', { CampaignId: camp.Id, ContactId: kendall.Id, Status: 'Attended' });
  sf.add('CampaignMember', { CampaignId: camp.Id, ContactId: umber.Id, Status: 'Sent' });
  for (const subtype of ['Call', 'Call', 'Email'])
    sf.add('Task', { WhoId: kendall.Id, TaskSubtype: subtype, Subject: subtype });
  sf.add('Event', { WhoId: kendall.Id, Subject: 'Demo' });
  Object.assign(ids, {
    bright: bright.Id,
    cobalt: cobalt.Id,
    kendall: kendall.Id,
    o1: o1.Id,
    o2: o2.Id,
    o3: o3.Id,
    camp: camp.Id,
  });
}

beforeAll(async () => {
  fake = await startFakeSalesforce({ batchSize: 2, seed: smallOrg() });
  seedOrg(fake);
  app = await createTestApp({
    env: {
      PUBLIC_URL,
      SALESFORCE_CLIENT_ID: fake.clientId,
      SALESFORCE_CLIENT_SECRET: fake.clientSecret,
      SALESFORCE_AUTH_URL: fake.authUrl,
    },
    adapters: { retry: { baseDelayMs: 1, maxDelayMs: 5, sleep: async () => {} } },
  });
  clientId = await makeClient(app, 'Acme');
  other = await makeClient(app, 'Other');
  owner = (await signedIn(app, { [clientId]: 'purple_owner', [other]: 'purple_owner' })).browser;
  sdr = (await signedIn(app, { [clientId]: 'yellow_sdr' })).browser;
  // Rally's own records the CRM's are matched to: a rep by e-mail, a company by domain, a prospect.
  const [file] = await app.db.insert(integrations).values({ clientId, source: 'fileforce' }).returning();
  await app.db.insert(salesReps).values({
    clientId,
    integrationId: file!.id,
    externalId: 'maya',
    firstName: 'Maya',
    email: 'Maya@Acme.example',
  });
  const [company] = await app.db
    .insert(companies)
    .values({
      clientId,
      integrationId: file!.id,
      externalId: 'brightline',
      name: 'Brightline',
      website: 'https://www.brightline.example/',
    })
    .returning();
  await app.db.insert(prospects).values({
    clientId,
    integrationId: file!.id,
    externalId: 'kendall',
    email: 'kendall@brightline.example',
    companyId: company!.id,
  });
});
afterAll(async () => {
  await fake?.close();
});

const connectionOf = async (client = clientId) =>
  (
    await app.db
      .select()
      .from(integrations)
      .where(and(eq(integrations.clientId, client), eq(integrations.source, 'salesforce')))
  )[0];
const n = async (
  table:
    | typeof crmStages
    | typeof opportunities
    | typeof opportunityStageHistory
    | typeof crmContacts
    | typeof crmListMembers
    | typeof crmActivityCounts,
) => (await app.db.select({ n: count() }).from(table).where(eq(table.clientId, clientId)))[0]!.n;

/** Walks the OAuth redirects as a browser would: our redirect call, the consent, our callback. */
async function connect(browser: Browser, client = clientId) {
  const start = await browser.get(
    `/v1/integration/crm/salesforce/client/${client}/redirect?return_to=integration`,
    {
      clientId: client,
    },
  );
  expect(start.statusCode).toBe(200);
  const url = new URL(start.json().redirect_url);
  expect(`${url.origin}${url.pathname}`).toBe(`${fake.authUrl}/services/oauth2/authorize`);
  expect(url.searchParams.get('scope')).toBe('api refresh_token id');
  const consent = await fetch(url, { redirect: 'manual' });
  expect(consent.status).toBe(302);
  const back = new URL(consent.headers.get('location')!);
  expect(`${back.origin}${back.pathname}`).toBe(`${PUBLIC_URL}/v1/integration/crm/salesforce/callback`);
  return browser.get(`${back.pathname}${back.search}`, { clientId: null });
}

describe('Salesforce connection and sync (issue 16)', () => {
  it('connects through OAuth, seals the tokens, and the first sync (a queue job) brings in the org, paged by nextRecordsUrl', async () => {
    const done = await connect(owner);
    expect(done.statusCode).toBe(302);
    expect(done.headers.location).toBe(
      `/settings/integrations/salesforce?client_id=${clientId}&connected=salesforce`,
    );
    const row = await connectionOf();
    expect(row).toMatchObject({ isActive: true, accountName: 'Acme Robotics (fake org)' });
    // Issue 42 item 7: opportunities open in Lightning on the org's own host (the token's instance_url).
    expect(row!.opportunityUrlTemplate).toBe(`${fake.authUrl}/lightning/r/Opportunity/{id}/view`);
    expect(row!.credentialsEnc).toMatch(/^v1\./);
    expect(row!.credentialsEnc).not.toContain('00D!');

    const synced = await waitFor(async () => {
      const i = await connectionOf();
      return i && !i.isSyncing && i.lastSyncedAt ? i : null;
    });
    expect(synced.lastError).toBeNull();
    expect(synced.syncProgress).toEqual({ phase: 'done', done: 1, total: 1 });
    // A single-currency org has no CurrencyIsoCode: refused (INVALID_FIELD), then asked again without it.
    const oppQueries = fake.queries().filter((q) => q.includes('FROM Opportunity '));
    expect(oppQueries[0]).toContain('CurrencyIsoCode');
    expect(oppQueries[1]).not.toContain('CurrencyIsoCode');
    expect(oppQueries[1]).toContain('RecordTypeId');
    // Paged: the fake's batches are two records, followed by their nextRecordsUrl.
    expect(fake.requests.some((r) => /\/query\/01g[0-9a-f]+-2$/.test(r.path))).toBe(true);

    const stages = await app.db
      .select()
      .from(crmStages)
      .where(eq(crmStages.clientId, clientId))
      .orderBy(asc(crmStages.sortOrder));
    expect(stages.map((s) => [s.key, s.probability, s.isClosed, s.isWon])).toEqual([
      ['Prospecting', 10, false, false],
      ['Qualification', 20, false, false],
      ['Proposal/Price Quote', 75, false, false],
      ['Closed Won', 100, true, true],
      ['Closed Lost', 0, true, false],
    ]);
    expect(
      await app.db.select().from(crmRecordTypes).where(eq(crmRecordTypes.clientId, clientId)),
    ).toHaveLength(1);

    // Owners: Maya maps to the rep with her e-mail; Theo is inactive and not listed as active.
    const owners = (
      await owner.get(`/v1/integration/crm/salesforce/client/${clientId}/owners/active`)
    ).json();
    expect(owners).toHaveLength(1);
    const [rep] = await app.db.select().from(salesReps).where(eq(salesReps.clientId, clientId));
    expect(owners[0]).toMatchObject({
      first_name: 'Maya',
      email: 'maya@acme.example',
      sales_rep_id: rep!.id,
    });

    // Accounts match companies by domain; contacts match prospects by e-mail (case aside).
    const [brightAccount] = await app.db
      .select()
      .from(crmAccounts)
      .where(eq(crmAccounts.externalId, ids.bright!));
    const [company] = await app.db.select().from(companies).where(eq(companies.clientId, clientId));
    expect(brightAccount).toMatchObject({ domain: 'brightline.example', companyId: company!.id });
    const [kendall] = await app.db.select().from(crmContacts).where(eq(crmContacts.externalId, ids.kendall!));
    const [prospect] = await app.db.select().from(prospects).where(eq(prospects.clientId, clientId));
    expect(kendall).toMatchObject({ prospectId: prospect!.id, accountId: brightAccount!.id });

    const opps = await app.db.select().from(opportunities).where(eq(opportunities.clientId, clientId));
    expect(opps).toHaveLength(3);
    const won = opps.find((o) => o.externalId === ids.o2)!;
    expect(won).toMatchObject({
      stage: 'Closed Won',
      isClosed: true,
      isWon: true,
      amountCents: 8_000_000,
      accountName: 'Cobalt Harbor',
      closeDate: '2026-12-31',
      probability: 100,
    });
    expect(won.stageId).toBe(stages.find((s) => s.key === 'Closed Won')!.id);
    expect(won.crmCreatedAt!.getTime()).toBeLessThan(Date.now() - 39 * 86_400_000);
    const pilot = opps.find((o) => o.externalId === ids.o1)!;
    expect(pilot).toMatchObject({ companyId: company!.id, amountCents: 1_250_050 });
    expect(opps.find((o) => o.externalId === ids.o3)!.recordTypeId).not.toBeNull();
    // Contact roles: Kendall is the pilot's primary decision maker.
    const roles = await app.db
      .select()
      .from(opportunityContacts)
      .where(eq(opportunityContacts.clientId, clientId));
    expect(roles).toEqual([
      { clientId, opportunityId: pilot.id, contactId: kendall!.id, role: 'Decision Maker', isPrimary: true },
    ]);

    // Stage history: moves only (the amount change is left out), each with where it came from.
    const moves = await app.db
      .select()
      .from(opportunityStageHistory)
      .where(eq(opportunityStageHistory.opportunityId, won.id))
      .orderBy(asc(opportunityStageHistory.changedAt));
    expect(moves.map((m) => [m.fromStage, m.toStage])).toEqual([
      [null, 'Prospecting'],
      ['Prospecting', 'Proposal/Price Quote'],
      ['Proposal/Price Quote', 'Closed Won'],
    ]);
    expect(moves[2]!.toStageId).toBe(won.stageId);
    expect(await n(opportunityStageHistory)).toBe(6);

    // The campaign with its members, and activity totals per contact and type.
    const lists = (await owner.get('/v1/rest/crm_list')).json();
    expect(lists.items).toEqual([
      expect.objectContaining({ name: 'Webinar attendees', kind: 'campaign', member_count: 2 }),
    ]);
    expect(await n(crmListMembers)).toBe(2);
    const counts = await app.db
      .select({ type: crmActivityCounts.activityType, count: crmActivityCounts.count })
      .from(crmActivityCounts)
      .where(eq(crmActivityCounts.contactId, kendall!.id))
      .orderBy(asc(crmActivityCounts.activityType));
    expect(counts).toEqual([
      { type: 'Call', count: 2 },
      { type: 'Email', count: 1 },
      { type: 'Meeting', count: 1 },
    ]);

    const settings = (await sdr.get(`/v1/integration/crm/salesforce/client/${clientId}/settings`)).json();
    expect(settings).toMatchObject({
      source: 'salesforce',
      write_back: false,
      counts: { stages: 5, owners: 2, accounts: 2, contacts: 2, opportunities: 3, lists: 1 },
    });
    expect(settings.integration).toMatchObject({ source: 'salesforce', is_active: true, is_syncing: false });
  });

  it('an incremental sync asks for records modified since the last one and stores a stage move once', async () => {
    const before = { opps: await n(opportunities), history: await n(opportunityStageHistory) };
    fake.update('Opportunity', ids.o1!, { StageName: 'Qualification', Probability: 20 });
    fake.clearRequests();
    await app.crmSync.run({ integrationId: (await connectionOf())!.id });
    const opportunityQuery = fake.queries().find((q) => q.includes('FROM Opportunity '))!;
    expect(opportunityQuery).toMatch(
      /WHERE SystemModstamp >= \d{4}-\d{2}-\d{2}T[\d:]+Z ORDER BY SystemModstamp ASC/,
    );
    const [pilot] = await app.db.select().from(opportunities).where(eq(opportunities.externalId, ids.o1!));
    expect(pilot).toMatchObject({ stage: 'Qualification', probability: 20 });
    expect(await n(opportunities)).toBe(before.opps);
    expect(await n(opportunityStageHistory)).toBe(before.history + 1);
    const [last] = await app.db
      .select()
      .from(opportunityStageHistory)
      .where(eq(opportunityStageHistory.opportunityId, pilot!.id))
      .orderBy(asc(opportunityStageHistory.changedAt))
      .offset(1);
    expect(last).toMatchObject({ fromStage: 'Prospecting', toStage: 'Qualification' });
    // Running again changes nothing.
    await app.crmSync.run({ integrationId: (await connectionOf())!.id });
    expect(await n(opportunityStageHistory)).toBe(before.history + 1);
  });

  it('an opportunity deleted in Salesforce comes through queryAll (IsDeleted) and leaves the reports', async () => {
    const id = (await connectionOf())!.id;
    const nowS = Math.floor(Date.now() / 1000);
    const report = async () =>
      (
        await owner.get(
          `/v1/report/client/${clientId}/opportunity?from=${nowS - 90 * 86_400}&to=${nowS + 86_400}&filter=all&page_size=200`,
        )
      ).json() as { items: { name: string }[]; total: number };
    const before = await report();
    expect(before.items.map((o) => o.name)).toContain('Cobalt - Renewal');
    fake.remove('Opportunity', ids.o2!);
    fake.clearRequests();
    await app.crmSync.run({ integrationId: id });
    // `query` leaves deleted rows out; the incremental read of opportunities is a queryAll.
    expect(fake.requests).toContainEqual(
      expect.objectContaining({
        path: expect.stringMatching(/\/queryAll$/),
        soql: expect.stringContaining('FROM Opportunity '),
      }),
    );
    const [row] = await app.db.select().from(opportunities).where(eq(opportunities.externalId, ids.o2!));
    expect(row!.isDeleted).toBe(true);
    const after = await report();
    expect(after.total).toBe(before.total - 1);
    expect(after.items.map((o) => o.name)).not.toContain('Cobalt - Renewal');
    const settings = (await owner.get(`/v1/integration/crm/salesforce/client/${clientId}/settings`)).json();
    expect(settings.counts.opportunities).toBe((await n(opportunities)) - 1);
  });

  it('a contact and an account deleted in Salesforce come through queryAll (IsDeleted) and leave the counts', async () => {
    const id = (await connectionOf())!.id;
    const counts = async () =>
      (await owner.get(`/v1/integration/crm/salesforce/client/${clientId}/settings`)).json().counts as {
        accounts: number;
        contacts: number;
      };
    const dune = fake.add('Account', { Name: 'Dune Labs', Website: 'dune.example' });
    const dara = fake.add('Contact', { Email: 'dara@dune.example', LastName: 'Dara', AccountId: dune.Id });
    await app.crmSync.run({ integrationId: id });
    const before = await counts();
    fake.remove('Contact', dara.Id);
    fake.remove('Account', dune.Id);
    fake.clearRequests();
    await app.crmSync.run({ integrationId: id });
    // `query` leaves deleted rows out; the incremental reads of accounts and contacts are queryAlls.
    for (const object of ['Account', 'Contact']) {
      expect(fake.requests).toContainEqual(
        expect.objectContaining({
          path: expect.stringMatching(/\/queryAll$/),
          soql: expect.stringContaining(`FROM ${object} `),
        }),
      );
    }
    const [contact] = await app.db.select().from(crmContacts).where(eq(crmContacts.externalId, dara.Id));
    const [account] = await app.db.select().from(crmAccounts).where(eq(crmAccounts.externalId, dune.Id));
    expect(contact!.isDeleted).toBe(true);
    expect(account!.isDeleted).toBe(true);
    expect(await counts()).toMatchObject({ accounts: before.accounts - 1, contacts: before.contacts - 1 });
  });

  it('refreshes an expired session mid-sync (INVALID_SESSION_ID) and waits out REQUEST_LIMIT_EXCEEDED', async () => {
    const id = (await connectionOf())!.id;
    const sealedBefore = (await connectionOf())!.credentialsEnc;
    fake.clearRequests();
    fake.afterCalls(4, () => fake.expireSessions());
    fake.afterCalls(7, () => fake.failWithLimit(2));
    fake.update('Opportunity', ids.o3!, { Name: 'Brightline - Expansion (2027)' });
    await app.crmSync.run({ integrationId: id });
    expect(fake.requests.some((r) => r.status === 401)).toBe(true);
    expect(fake.requests.filter((r) => r.path === '/services/oauth2/token')).toHaveLength(1);
    expect(fake.requests.filter((r) => r.status === 403)).toHaveLength(2);
    const row = (await connectionOf())!;
    expect(row).toMatchObject({ isActive: true, isSyncing: false, lastError: null });
    expect(row.credentialsEnc).not.toBe(sealedBefore);
    const [o3] = await app.db.select().from(opportunities).where(eq(opportunities.externalId, ids.o3!));
    expect(o3!.name).toBe('Brightline - Expansion (2027)');
  });

  it('a sync that fails midway is resumed by the next and every row is stored once', async () => {
    const id = (await connectionOf())!.id;
    for (let i = 0; i < 5; i++) {
      fake.add('Opportunity', {
        Name: `Bulk ${i}`,
        AccountId: ids.cobalt,
        StageName: 'Prospecting',
        Amount: 1000,
        IsClosed: false,
        IsWon: false,
      });
    }
    const before = await n(opportunities);
    // The retries of one call run out in the middle of the opportunities.
    fake.afterCalls(6, () => fake.failWithServerError(8));
    await expect(app.crmSync.run({ integrationId: id })).rejects.toThrow(/500/);
    expect((await connectionOf())!.lastError).toMatch(/will be retried/);
    await app.crmSync.run({ integrationId: id });
    expect(await n(opportunities)).toBe(before + 5);
    const names = await app.db
      .select({ name: opportunities.name, n: count() })
      .from(opportunities)
      .where(eq(opportunities.clientId, clientId))
      .groupBy(opportunities.externalId, opportunities.name);
    expect(names.every((r) => r.n === 1)).toBe(true);
    expect((await connectionOf())!.lastError).toBeNull();
  });

  it('settings: write-back and activity definitions change (integration.write), 422 names the field, 401, 403', async () => {
    const url = `/v1/integration/crm/salesforce/client/${clientId}/settings`;
    const res = await owner.post(url, {
      write_back: true,
      outreach_activity_types: ['Call', 'Email', 'Call'],
      meeting_activity_types: ['Meeting'],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      write_back: true,
      outreach_activity_types: ['Call', 'Email'],
      meeting_activity_types: ['Meeting'],
    });
    const bad = await owner.post(url, { outreach_activity_types: [''] });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toMatch(/^body\.outreach_activity_types/);
    const badSource = await owner.get(`/v1/integration/crm/pipedrive/client/${clientId}/settings`);
    expect(badSource.statusCode).toBe(422);
    expect(badSource.json().errors[0].field).toBe('params.source');
    expect((await sdr.post(url, { write_back: false })).statusCode).toBe(403);
    expect((await sdr.get(`/v1/integration/crm/salesforce/client/${clientId}/redirect`)).statusCode).toBe(
      403,
    );
    expect((await new Browser(app).get(url, { clientId })).statusCode).toBe(401);
    expect((await owner.get(`/v1/integration/crm/salesforce/client/${other}/settings`)).statusCode).toBe(403);
    // Another client has its own (empty) settings.
    const theirs = (
      await owner.get(`/v1/integration/crm/salesforce/client/${other}/settings`, { clientId: other })
    ).json();
    expect(theirs).toMatchObject({ integration: null, write_back: false, counts: { opportunities: 0 } });
    expect(
      (
        await owner.post(
          `/v1/integration/crm/salesforce/client/${other}/settings`,
          { write_back: true },
          { clientId: other },
        )
      ).statusCode,
    ).toBe(404);
  });

  it('fields come from the CRM (describe), with the stage picklist', async () => {
    const res = await sdr.get(`/v1/integration/crm/salesforce/client/${clientId}/fields?object=opportunity`);
    expect(res.statusCode).toBe(200);
    const stage = res.json().find((f: { name: string }) => f.name === 'StageName');
    expect(stage.options.map((o: { value: string }) => o.value)).toContain('Closed Won');
    const bad = await sdr.get(`/v1/integration/crm/salesforce/client/${clientId}/fields?object=lead`);
    expect(bad.json().errors[0].field).toBe('querystring.object');
  });

  it('outreach and meeting definitions, owner mapping, campaigns and an audience estimate', async () => {
    const base = `/v1/integration/crm/salesforce/client/${clientId}`;
    const outreach = (await sdr.get(`${base}/outreach`)).json();
    expect(outreach.activity_types).toEqual(['Call', 'Email']);
    expect(outreach.available).toContainEqual({ type: 'Call', contacts: 1, total: 2 });
    const put = await owner.put(`${base}/meeting_activity`, { activity_types: ['Meeting', 'Task'] });
    expect(put.statusCode).toBe(200);
    expect(put.json().activity_types).toEqual(['Meeting', 'Task']);
    const bad = await owner.put(`${base}/outreach`, { activity_types: 'Call' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('body.activity_types');
    expect((await sdr.put(`${base}/outreach`, { activity_types: [] })).statusCode).toBe(403);

    const [maya] = (await sdr.get(`${base}/owners/active`)).json();
    const unmapped = await owner.put(`${base}/owners/${maya.id}`, { sales_rep_id: null });
    expect(unmapped.json()).toMatchObject({ sales_rep_id: null, mapped_by_hand: false });
    const [rep] = await app.db.select().from(salesReps).where(eq(salesReps.clientId, clientId));
    const mapped = await owner.put(`${base}/owners/${maya.id}`, { sales_rep_id: rep!.id });
    expect(mapped.json()).toMatchObject({ sales_rep_id: rep!.id, mapped_by_hand: true });
    const wrongRep = await owner.put(`${base}/owners/${maya.id}`, { sales_rep_id: maya.id });
    expect(wrongRep.statusCode).toBe(422);
    expect(wrongRep.json().errors[0].field).toBe('body.sales_rep_id');
    expect((await sdr.put(`${base}/owners/${maya.id}`, { sales_rep_id: null })).statusCode).toBe(403);

    for (const path of ['campaign', 'lists']) {
      const lists = (await sdr.get(`${base}/${path}?search=webinar`)).json();
      expect(lists).toMatchObject({ total: 1, items: [{ name: 'Webinar attendees', kind: 'campaign' }] });
    }
    const campaign = (await sdr.get(`${base}/campaign`)).json().items[0];
    const estimate = await sdr.post(`${base}/audience/estimate`, { list_ids: [campaign.id] });
    expect(estimate.statusCode).toBe(200);
    // Kendall (a prospect, at Brightline, a Rally company) and Umber (at Cobalt, unknown to Rally).
    expect(estimate.json()).toEqual({ contacts: 2, accounts: 2, prospects: 1, companies: 1 });
    const none = await sdr.post(`${base}/audience/estimate`, { list_ids: [] });
    expect(none.json().errors[0].field).toBe('body.list_ids');
    const foreignList = await sdr.post(`${base}/audience/estimate`, { list_ids: [maya.id] });
    expect(foreignList.statusCode).toBe(422);
    expect(foreignList.json().errors[0].field).toBe('body.list_ids');
  });

  it('write-back (on): superprospects become members of a Rally campaign, batched, once', async () => {
    const [prospect] = await app.db.select().from(prospects).where(eq(prospects.clientId, clientId));
    const [cadence] = await app.db
      .insert(cadences)
      .values({ clientId, integrationId: prospect!.integrationId, externalId: 'c1', name: 'Outbound' })
      .returning();
    await app.db.insert(targets).values({
      clientId,
      cadenceId: cadence!.id,
      prospectId: prospect!.id,
      impressions: 20,
      clicks: 2,
      superDate: new Date(Date.now() - 86_400_000),
    });
    const id = (await connectionOf())!.id;
    await owner.post(`/v1/integration/crm/salesforce/client/${clientId}/settings`, { write_back: true });
    await app.crmSync.run({ integrationId: id });
    const campaign = fake.records('Campaign').find((c) => c.Name === 'Rally superprospects')!;
    expect(campaign).toBeDefined();
    expect(fake.records('CampaignMember').filter((m) => m.CampaignId === campaign.Id)).toEqual([
      expect.objectContaining({ ContactId: ids.kendall, Status: 'Superprospect' }),
    ]);
    const [settings] = await app.db
      .select()
      .from(crmIntegrationSettings)
      .where(eq(crmIntegrationSettings.integrationId, id));
    expect(settings!.writeBackTarget).toBe(campaign.Id);
    const composites = fake.composites();
    await app.crmSync.run({ integrationId: id });
    expect(fake.composites()).toBe(composites);
    expect(fake.records('CampaignMember').filter((m) => m.CampaignId === campaign.Id)).toHaveLength(1);
    expect(fake.records('Campaign').filter((c) => c.Name === 'Rally superprospects')).toHaveLength(1);
    // Off again: nothing is written.
    await owner.post(`/v1/integration/crm/salesforce/client/${clientId}/settings`, { write_back: false });
  });

  it('revoked access mid-sync makes the connection inactive with the reason', async () => {
    const id = (await connectionOf())!.id;
    fake.afterCalls(3, () => fake.revokeAccess());
    await app.crmSync.run({ integrationId: id });
    expect(await connectionOf()).toMatchObject({
      isActive: false,
      isSyncing: false,
      lastError: SALESFORCE_REVOKED_MESSAGE,
    });
    const settings = (await owner.get(`/v1/integration/crm/salesforce/client/${clientId}/settings`)).json();
    expect(settings.integration).toMatchObject({ is_active: false, last_error: SALESFORCE_REVOKED_MESSAGE });
  });

  it('reconnect, then disconnect: the refresh token is revoked at Salesforce and forgotten; the data stays', async () => {
    expect((await connect(owner)).headers.location).toMatch(/connected=salesforce/);
    await waitFor(async () => {
      const i = await connectionOf();
      return i && i.isActive && !i.isSyncing ? i : null;
    });
    const before = fake.revokedTokens.length;
    const res = await owner.delete(`/v1/integration/crm/salesforce/client/${clientId}/settings`);
    expect(res.statusCode).toBe(204);
    expect(fake.revokedTokens.length).toBe(before + 1);
    expect(fake.revokedTokens.at(-1)).toMatch(/^5Aep/);
    expect(await connectionOf()).toMatchObject({ isActive: false, credentialsEnc: null });
    expect(await n(opportunities)).toBeGreaterThan(0);
    expect(
      (await owner.post(`/v1/integration/crm/salesforce/client/${clientId}/settings`, { sync_now: true }))
        .statusCode,
    ).toBe(409);
  });
});

describe('Salesforce refusing for reasons a refresh cannot fix', () => {
  it('a connected app granting too few scopes: the connection is refused with the reason', async () => {
    fake.grantScope('id');
    try {
      const res = await connect(owner);
      expect(new URL(String(res.headers.location), PUBLIC_URL).searchParams.get('connect_error')).toMatch(
        /did not grant the "api" and "refresh_token" scopes/,
      );
    } finally {
      fake.grantScope('refresh_token id api');
    }
  });

  it('an org without API access (API_DISABLED_FOR_ORG) makes the connection inactive with the reason', async () => {
    expect((await connect(owner)).headers.location).toMatch(/connected=salesforce/);
    await waitFor(async () => {
      const i = await connectionOf();
      return i && i.isActive && !i.isSyncing ? i : null;
    });
    fake.disableApi();
    try {
      await app.crmSync.run({ integrationId: (await connectionOf())!.id });
      expect(await connectionOf()).toMatchObject({
        isActive: false,
        lastError: SALESFORCE_API_DISABLED_MESSAGE,
      });
    } finally {
      fake.disableApi(false);
    }
  });
});

describe('Salesforce multi-currency org', () => {
  it("reads each opportunity's CurrencyIsoCode", async () => {
    const multi = await startFakeSalesforce({ multiCurrency: true, seed: smallOrg() });
    try {
      multi.add('Opportunity', {
        Name: 'Euro deal',
        StageName: 'Prospecting',
        Amount: 500,
        CurrencyIsoCode: 'EUR',
      });
      const adapter = createSalesforceAdapter({
        authUrl: multi.authUrl,
        sandboxAuthUrl: multi.authUrl,
        apiVersion: multi.apiVersion,
        clientId: multi.clientId,
        clientSecret: multi.clientSecret,
      });
      const consent = await fetch(adapter.authorizeUrl!({ state: 's', redirectUri: 'http://localhost/cb' }), {
        redirect: 'manual',
      });
      const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
      let creds: Credentials = await adapter.exchangeCode!({ code, redirectUri: 'http://localhost/cb' });
      const ctx = { credentials: () => creds, saveCredentials: async (c: Credentials) => void (creds = c) };
      const got = [];
      for await (const page of adapter.opportunities!(ctx, null)) got.push(...page.items);
      expect(got.map((o) => [o.name, o.currency, o.amount])).toEqual([['Euro deal', 'EUR', 500]]);
      expect(multi.queries().filter((q) => q.includes('FROM Opportunity '))).toHaveLength(1);
    } finally {
      await multi.close();
    }
  });
});

describe('Salesforce not set up', () => {
  it("connect answers 400 in the user's words when SALESFORCE_CLIENT_ID is unset (issue 42 item 3: the variable goes to the log and the README)", async () => {
    const bare = await createTestApp();
    const c = await makeClient(bare, 'Bare');
    const { browser } = await signedIn(bare, { [c]: 'purple_owner' });
    const res = await browser.get(`/v1/integration/crm/salesforce/client/${c}/redirect`);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(
      'Salesforce is not available on this installation — ask your administrator.',
    );
  });
});
