import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { crmActivityCounts, crmListMembers, integrations } from '../../../../db/schema/index.ts';
import { createTestApp } from '../../../../../test/helpers.ts';
import { makeClient } from '../../../../../test/http.ts';
import { crmAdFieldsWorld } from '../../../../../test/ad-fields-crm-kit.ts';
import { smallOrg, startFakeSalesforce } from '../../../../../test/fakes/salesforce.ts';
import type { Credentials } from '../../port.ts';
import { SALESFORCE_LIMIT_EXCEEDED_MESSAGE } from './api-budget.ts';

/**
 * Salesforce on large orgs (issue 40 item 7), through the CRM sync engine against the fake: the
 * org's API usage (Sforce-Limit-Info on every reply) is kept on the connection and the sync stops
 * before it leaves less than 15 % of the daily allocation to the org's other integrations; over the
 * allocation (REQUEST_LIMIT_EXCEEDED TotalRequests) it stops at once with a clear message; archived
 * tasks and events count (queryAll); a Lead in a campaign matches and can be written back.
 */
const LIMIT = 1000;
const sf = await startFakeSalesforce({ seed: smallOrg(), batchSize: 2, dailyApiLimit: LIMIT });
const app = await createTestApp({
  workers: false,
  env: {
    SALESFORCE_CLIENT_ID: sf.clientId,
    SALESFORCE_CLIENT_SECRET: sf.clientSecret,
    SALESFORCE_AUTH_URL: sf.authUrl,
  },
  adapters: { retry: { baseDelayMs: 1, maxDelayMs: 2, sleep: async () => {} } },
});
const adapter = app.crmSync.adapters.salesforce!;
let credentials: Credentials;
let world: Awaited<ReturnType<typeof crmAdFieldsWorld>>;

beforeAll(async () => {
  const consent = await fetch(adapter.authorizeUrl!({ state: 's', redirectUri: 'http://localhost/cb' }), {
    redirect: 'manual',
  });
  const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
  credentials = await adapter.exchangeCode!({ code, redirectUri: 'http://localhost/cb' });
  world = await crmAdFieldsWorld(app, {
    clientId: await makeClient(app, 'Large org'),
    source: 'salesforce',
    credentials,
  });
  for (let i = 0; i < 12; i++)
    sf.add('Contact', { Email: `p${i}@large.example`, FirstName: `P${i}`, LastName: 'Large' });
});
afterAll(() => sf.close());

const connection = async () =>
  (await app.db.select().from(integrations).where(eq(integrations.id, world.integrationId)))[0]!;
/** A fresh start: nothing stored about the budget, every cursor cleared (a first sync). */
beforeEach(async () => {
  await app.db
    .update(integrations)
    .set({ apiUsage: null, syncCursor: {}, lastError: null })
    .where(eq(integrations.id, world.integrationId));
  sf.clearRequests();
});
const apiCalls = () => sf.requests.filter((r) => r.path.startsWith('/services/data/'));

describe('the daily API allocation (Sforce-Limit-Info)', () => {
  it('every reply says the usage; the connection keeps calls used / allocation', async () => {
    sf.setApiUsage(100);
    await world.sync();
    const row = await connection();
    expect(row.lastError).toBeNull();
    expect(row.apiUsage).toEqual({ used: 100 + apiCalls().length, max: LIMIT, at: expect.any(String) });
  });

  it("stops with a clear message at 85 %, leaving the rest to the org's other integrations; the next run asks nothing", async () => {
    sf.setApiUsage(840);
    await expect(world.sync()).rejects.toThrow(/nearly used/);
    const row = await connection();
    expect(row.lastError).toMatch(
      /Salesforce's daily API allocation is nearly used: 850 of 1,000 calls in the last 24 hours \(85 %\)\. Rally stops at 85 %/,
    );
    expect(sf.apiUsage()).toBe(850);
    expect(row.apiUsage).toMatchObject({ used: 850, max: LIMIT });
    expect(sf.requests.some((r) => r.status === 403)).toBe(false);
    // A retry within the hour: the stored figure is over the line, nothing is asked.
    sf.clearRequests();
    await expect(world.sync()).rejects.toThrow(/nearly used/);
    expect(apiCalls()).toEqual([]);
  });

  it('over the allocation (REQUEST_LIMIT_EXCEEDED, TotalRequests): one refused call, then a clear message', async () => {
    sf.setApiUsage(LIMIT);
    await expect(world.sync()).rejects.toThrow(/used up/);
    expect(sf.requests.filter((r) => r.status === 403)).toHaveLength(1);
    expect((await connection()).lastError).toBe(
      `The last sync failed and will be retried: ${SALESFORCE_LIMIT_EXCEEDED_MESSAGE}`,
    );
  });
});

describe('activities and campaign members', () => {
  it('archived tasks and events count (queryAll); deleted ones do not', async () => {
    sf.setApiUsage(0);
    const who = sf.add('Contact', { Email: 'old@large.example', FirstName: 'Old', LastName: 'Timer' });
    const calls = [0, 1, 2].map(() => sf.add('Task', { WhoId: who.Id, TaskSubtype: 'Call' }));
    const meeting = sf.add('Event', { WhoId: who.Id });
    sf.archive('Task', calls[0]!.Id);
    sf.archive('Event', meeting.Id);
    sf.remove('Task', calls[1]!.Id);
    await world.sync();
    const counts = await app.db
      .select()
      .from(crmActivityCounts)
      .where(
        and(
          eq(crmActivityCounts.integrationId, world.integrationId),
          eq(crmActivityCounts.contactExternalId, who.Id),
        ),
      );
    expect(Object.fromEntries(counts.map((c) => [c.activityType, c.count]))).toEqual({ Call: 2, Meeting: 1 });
    // A first sync reads every task and event once, not its contacts' tasks 200 contacts at a time.
    expect(sf.queries().filter((q) => q.includes('WhoId IN'))).toEqual([]);

    // Later syncs: the changed tasks' contacts counted again, archived tasks included.
    const late = sf.add('Task', { WhoId: who.Id, TaskSubtype: 'Call' });
    sf.archive('Task', late.Id);
    sf.clearRequests();
    await world.sync();
    const again = await app.db
      .select()
      .from(crmActivityCounts)
      .where(
        and(
          eq(crmActivityCounts.integrationId, world.integrationId),
          eq(crmActivityCounts.contactExternalId, who.Id),
        ),
      );
    expect(Object.fromEntries(again.map((c) => [c.activityType, c.count]))).toEqual({ Call: 3, Meeting: 1 });
    expect(sf.queries().filter((q) => q.includes('WhoId IN')).length).toBeGreaterThan(0);
    expect(
      sf.queries().filter((q) => q.includes('FROM Task') || q.includes('FROM Event')).length,
    ).toBeGreaterThan(0);
    expect(
      sf.requests
        .filter((r) => r.soql && /FROM (Task|Event)/.test(r.soql))
        .every((r) => r.path.endsWith('/queryAll')),
    ).toBe(true);
  });

  it('a Lead in a campaign matches, and is written back as a LeadId member', async () => {
    sf.setApiUsage(0);
    const lead = sf.add('Lead', {
      Email: 'lead@large.example',
      FirstName: 'Lee',
      LastName: 'Lead',
      Company: 'L',
    });
    const campaign = sf.add('Campaign', { Name: 'Webinar', IsActive: true });
    sf.add('CampaignMember', { CampaignId: campaign.Id, LeadId: lead.Id, Status: 'Sent' });
    await world.sync();
    const [member] = await app.db
      .select()
      .from(crmListMembers)
      .where(eq(crmListMembers.memberExternalId, lead.Id));
    expect(member!.contactId).not.toBeNull();

    const ctx = {
      credentials: () => credentials,
      saveCredentials: async (c: Credentials) => void (credentials = c),
    };
    const item = {
      contactExternalId: lead.Id,
      superDate: new Date().toISOString(),
      impressions: 1,
      clicks: 0,
    };
    const { target, written } = await adapter.writeBack!(ctx, [item], null);
    expect(written).toBe(1);
    expect(sf.records('CampaignMember').filter((m) => m.CampaignId === target)).toEqual([
      expect.objectContaining({ LeadId: lead.Id, Status: 'Superprospect' }),
    ]);
    // Idempotent: the lead is already a member.
    expect((await adapter.writeBack!(ctx, [item], target)).written).toBe(0);
  });
});
