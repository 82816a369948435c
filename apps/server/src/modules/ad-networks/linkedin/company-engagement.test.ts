import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { AdCampaignCompanies, CompanyEngagement } from '@rally/shared/schemas/ad-network-campaigns';
import type { Journey } from '@rally/shared/schemas/journeys';
import {
  adAudiences,
  adCampaigns,
  adCompanyStats,
  adNetworkConnections,
  adNetworkOrganizations,
  companies,
  crmAccounts,
  journeyAccounts,
  journeyMoves,
  prospects,
} from '../../../db/schema/index.ts';
import { createTestApp } from '../../../../test/helpers.ts';
import { Browser, makeClient, signedIn } from '../../../../test/http.ts';
import { connectLinkedInDirectly, makeCohort } from '../../../../test/ad-network-kit.ts';
import { makeContent, makeIntegration } from '../../../../test/engagement.ts';
import { startFakeLinkedIn } from '../../../../test/fakes/linkedin.ts';
import type { FakeLinkedIn } from '../../../../test/fakes/linkedin.ts';

/**
 * Issue 39 "Results" (LinkedIn's company-level engagement where its API gives it) and "Journey rules
 * may use the account-level engagement a network reports": the stats job pulls MEMBER_COMPANY per
 * day (idempotent, late corrections applied, companies under the privacy minimum absent), looks the
 * organisations up and matches them to CRM accounts by domain or vanity name; the routes show a
 * campaign's companies and an account's engagement; a journey rule on it moves an account.
 */
let fake: FakeLinkedIn;
let app: FastifyInstance;
let mine: string;
let foreign: string;
let manager: Browser;
let sdr: Browser;
let stranger: Browser;
let anonymous: Browser;
let id: string;
let creatives: string[];
let cohortId: string;
const company: Record<string, string> = {};
const account: Record<string, string> = {};
const DAY = 86_400_000;
const starts = new Date(Date.now() + DAY);
const dayOf = (n: number) => new Date(starts.getTime() + n * DAY).toISOString().slice(0, 10);
const pulledAt = new Date(starts.getTime() + 5 * DAY);
const tail = (s: string) => s.split(':').pop() ?? '';

async function makeCompany(name: string, domain: string | null) {
  const integrationId = await makeIntegration(app, mine);
  const [co] = await app.db
    .insert(companies)
    .values({ clientId: mine, integrationId, externalId: randomUUID(), name })
    .returning({ id: companies.id });
  for (const last of ['Able', 'Baker'])
    await app.db.insert(prospects).values({
      clientId: mine,
      integrationId,
      externalId: randomUUID(),
      firstName: 'Pat',
      lastName: last,
      email: `${last.toLowerCase()}-${randomUUID().slice(0, 6)}@${domain ?? 'example.com'}`,
      companyId: co!.id,
    });
  const [acc] = await app.db
    .insert(crmAccounts)
    .values({
      clientId: mine,
      integrationId,
      externalId: randomUUID(),
      name: `${name} (CRM)`,
      website: domain ? `https://${domain}` : null,
      domain,
      companyId: co!.id,
    })
    .returning({ id: crmAccounts.id });
  return { companyId: co!.id, accountId: acc!.id };
}

beforeAll(async () => {
  fake = await startFakeLinkedIn({ settleMs: 0 });
  app = await createTestApp({
    workers: false,
    env: {
      LINKEDIN_CLIENT_ID: fake.clientId,
      LINKEDIN_CLIENT_SECRET: fake.clientSecret,
      LINKEDIN_API_URL: fake.url,
      LINKEDIN_AUTH_URL: fake.url,
      LINKEDIN_API_VERSION: fake.version,
    },
    adapters: { retry: { sleep: async () => undefined, baseDelayMs: 1 } },
  });
  mine = await makeClient(app, 'Mine');
  foreign = await makeClient(app, 'Foreign');
  manager = (await signedIn(app, { [mine]: 'green_manager' })).browser;
  sdr = (await signedIn(app, { [mine]: 'yellow_sdr' })).browser;
  stranger = (await signedIn(app, { [foreign]: 'purple_owner' })).browser;
  anonymous = new Browser(app);
  anonymous.clientId = mine;
  // Brightline matches by its website's domain; Northwind has no website at LinkedIn, so by its
  // vanity name; Quiet's organisation is one LinkedIn cannot describe.
  for (const [key, name, domain] of [
    ['brightline', 'Brightline Freight', 'brightline.test'],
    ['northwind', 'Northwind Logistics', 'northwind.test'],
  ] as const) {
    const made = await makeCompany(name, domain);
    company[key] = made.companyId;
    account[key] = made.accountId;
  }
  fake.organizations.set('9001', {
    id: 9001,
    localizedName: 'Brightline Freight',
    vanityName: 'brightline-freight',
    localizedWebsite: 'https://www.Brightline.test/',
  });
  fake.organizations.set('9002', { id: 9002, localizedName: 'Northwind', vanityName: 'northwind' });
  const contentId = await makeContent(app, mine, { landingPageUrl: 'https://acme.test/offer' });
  // The journey's cohort: the two companies' people (made before the audience's 320 members).
  cohortId = (await app.cohorts.createAndSync(mine, { name: 'Accounts', source_kind: 'filter', filters: {} }))
    .id;
  const tokens = fake.mintTokens();
  const connection = await connectLinkedInDirectly(app, mine, {
    ...tokens,
    expiresAt: new Date(Date.now() + 60 * DAY).toISOString(),
  });
  await app.db
    .update(adNetworkConnections)
    .set({ pageId: '7001', pageName: 'Acme Corp' })
    .where(eq(adNetworkConnections.id, connection.id));
  const buyers = await makeCohort(app, mine, 'Buyers', 320);
  const [audience] = await app.db
    .insert(adAudiences)
    .values({
      clientId: mine,
      connectionId: connection.id,
      sourceKind: 'cohort',
      cohortId: buyers.cohortId,
      name: 'Buyers',
      adAccountId: '5001',
    })
    .returning();
  await app.adNetworks.push(audience!.id);
  const res = await manager.post('/v1/ad-networks/campaigns', {
    audience_id: audience!.id,
    content_id: contentId,
    name: 'Buyers Q1',
    objective: 'traffic',
    budget_kind: 'daily',
    budget_minor: 2_500,
    starts_at: starts.toISOString(),
  });
  expect(res.statusCode, res.body).toBe(201);
  id = res.json().id;
  await app.adCampaigns.sync(id);
  const [c] = await app.db.select().from(adCampaigns).where(eq(adCampaigns.id, id));
  creatives = c!.ads.map((a) => tail(a.adId!));
}, 120_000);
afterAll(async () => {
  await app.close();
  await fake.close();
});

const stored = () => app.db.select().from(adCompanyStats).where(eq(adCompanyStats.campaignId, id));

describe('LinkedIn company-level engagement, pulled by the stats job', () => {
  it('stores each company’s day once, without the companies under LinkedIn’s privacy minimum', async () => {
    const [a, b] = creatives as [string, string];
    // LinkedIn sums a company over the group's creatives (20 + 20 on day 0).
    fake.campaigns.setCompanyDay(a, dayOf(0), '9001', { impressions: 20, clicks: 1 });
    fake.campaigns.setCompanyDay(b, dayOf(0), '9001', { impressions: 20, clicks: 1 });
    fake.campaigns.setCompanyDay(a, dayOf(1), '9001', { impressions: 30, clicks: 1 });
    fake.campaigns.setCompanyDay(a, dayOf(1), '9002', { impressions: 10, clicks: 0 });
    fake.campaigns.setCompanyDay(a, dayOf(1), '9003', { impressions: 2, clicks: 1 });
    fake.campaigns.setCompanyDay(a, dayOf(2), '9004', { impressions: 5, clicks: 0 });
    const first = await app.adCampaignStats.pull(id, pulledAt);
    expect(first?.companies).toMatchObject({ rows: 4 });
    await app.adCampaignStats.pull(id, pulledAt);
    const rows = await stored();
    expect(rows).toHaveLength(4);
    expect(rows.find((r) => r.organizationId === '9001' && r.day === dayOf(0))).toMatchObject({
      impressions: 40,
      clicks: 2,
    });
    expect(rows.some((r) => r.organizationId === '9003')).toBe(false);
  });

  it('applies LinkedIn’s late correction of a day at the next pull', async () => {
    fake.campaigns.setCompanyDay(creatives[0]!, dayOf(1), '9001', { impressions: 35, clicks: 2 });
    await app.adCampaignStats.pull(id, pulledAt);
    const rows = await stored();
    expect(rows).toHaveLength(4);
    expect(rows.find((r) => r.organizationId === '9001' && r.day === dayOf(1))).toMatchObject({
      impressions: 35,
      clicks: 2,
    });
  });

  it('matches organisations to CRM accounts by website domain, else vanity name, and keeps the match', async () => {
    const orgs = await app.db
      .select()
      .from(adNetworkOrganizations)
      .where(eq(adNetworkOrganizations.clientId, mine));
    const of = (org: string) => orgs.find((o) => o.organizationId === org);
    expect(of('9001')).toMatchObject({
      name: 'Brightline Freight',
      domain: 'brightline.test',
      crmAccountId: account.brightline,
      matchedBy: 'domain',
    });
    expect(of('9002')).toMatchObject({ crmAccountId: account.northwind, matchedBy: 'vanity_name' });
    // LinkedIn could not describe it: looked up, stored, unmatched.
    expect(of('9004')).toMatchObject({ name: null, crmAccountId: null });
    expect(of('9004')?.lookedUpAt).toBeTruthy();
  });

  it('looks many organisations up in LinkedIn-sized batches', async () => {
    const before = fake.requests.filter((r) => r.path === '/rest/organizationsLookup').length;
    for (let i = 0; i < 120; i++)
      fake.campaigns.setCompanyDay(creatives[0]!, dayOf(3), String(20_000 + i), {
        impressions: 3,
        clicks: 0,
      });
    const pull = await app.adCampaignStats.pull(id, pulledAt);
    expect(pull?.companies).toMatchObject({ lookedUp: 120 });
    // 50 + 50 + 20: the fake refuses more than 50 in one call.
    expect(fake.requests.filter((r) => r.path === '/rest/organizationsLookup').length - before).toBe(3);
  });
});

describe('the companies routes', () => {
  it('lists a campaign’s companies with their CRM accounts, most impressions first', async () => {
    const res = await sdr.get(`/v1/ad-networks/campaigns/${id}/companies`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as AdCampaignCompanies;
    expect(body).toMatchObject({ network: 'linkedin', supported: true, privacy_minimum: 3 });
    expect(body.items[0]).toMatchObject({
      organization_id: '9001',
      name: 'Brightline Freight',
      account_id: account.brightline,
      account_name: 'Brightline Freight (CRM)',
      company_id: company.brightline,
      impressions: 75,
      clicks: 4,
      first_day: dayOf(0),
      last_day: dayOf(1),
    });
    expect((await sdr.get('/v1/ad-networks/campaigns/not-a-uuid/companies')).body).toContain('params.id');
    expect((await stranger.get(`/v1/ad-networks/campaigns/${id}/companies`)).statusCode).toBe(404);
    expect((await anonymous.get(`/v1/ad-networks/campaigns/${id}/companies`)).statusCode).toBe(401);
  });

  it('gives an account’s engagement by campaign within the days asked', async () => {
    const path = `/v1/ad-networks/company-engagement/${company.brightline}`;
    // The campaign's days run from tomorrow: every window from today holds them.
    const res = await sdr.get(`${path}?days=30`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as CompanyEngagement;
    expect(body.totals).toEqual({ impressions: 75, clicks: 4 });
    expect(body.items).toEqual([
      expect.objectContaining({ network: 'linkedin', campaign_name: 'Buyers Q1' }),
    ]);
    const bad = await sdr.get(`${path}?days=0`);
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('querystring.days');
    expect((await stranger.get(path)).statusCode).toBe(404);
    expect((await anonymous.get(path)).statusCode).toBe(401);
  });
});

describe('journey rules on network engagement', () => {
  let journey: Journey;
  const stages = (rule: Record<string, unknown>) => [
    { name: 'Unaware' },
    { name: 'Seen on LinkedIn', rules: [rule] },
  ];
  const url = () => `/v1/rest/client/${mine}/journey`;

  it('takes a network rule with its window; refuses a missing or too long window naming the field', async () => {
    const noDays = await manager.post(url(), {
      cohort_id: cohortId,
      name: 'Accounts journey',
      stages: stages({ kind: 'network_impressions_gte', value: 50 }),
    });
    expect(noDays.statusCode).toBe(422);
    expect(noDays.body).toContain('body.stages.1.rules.0.days');
    const tooLong = await manager.post(url(), {
      cohort_id: cohortId,
      name: 'Accounts journey',
      stages: stages({ kind: 'network_clicks_gte', value: 1, days: 731 }),
    });
    expect(tooLong.statusCode).toBe(422);
    expect(tooLong.body).toContain('body.stages.1.rules.0.days');
    const good = {
      cohort_id: cohortId,
      name: 'Accounts journey',
      stages: stages({ kind: 'network_impressions_gte', value: 50, days: 30 }),
    };
    expect((await sdr.post(url(), good)).statusCode).toBe(403);
    // Another client's member: not theirs to write (403); from their own client, the cohort is unknown (404).
    expect((await stranger.post(url(), good)).statusCode).toBe(403);
    expect(
      (await stranger.post(`/v1/rest/client/${foreign}/journey`, good, { clientId: foreign })).statusCode,
    ).toBe(404);
    const res = await manager.post(url(), good);
    expect(res.statusCode, res.body).toBe(201);
    journey = res.json() as Journey;
    expect(journey.stages[1]!.rules).toEqual([
      { kind: 'network_impressions_gte', value: 50, crm_stage_id: null, days: 30 },
    ]);
  });

  it('moves an account whose company LinkedIn reports enough impressions for within the window', async () => {
    // Long after the engagement: outside the 30 days, nothing moves.
    const late = new Date(pulledAt.getTime() + 100 * DAY);
    expect(await app.journeys.evaluate(journey.id, late)).toMatchObject({ entered: 2, moved: 0 });
    // A pull lists the matched accounts as changed; the next run reads them within the window.
    await app.adCampaignStats.pull(id, pulledAt);
    const run = await app.journeys.evaluate(journey.id, pulledAt);
    expect(run).toMatchObject({ moved: 1 });
    const stageOf = async (companyId: string) =>
      (
        await app.db
          .select({ stageId: journeyAccounts.stageId })
          .from(journeyAccounts)
          .where(and(eq(journeyAccounts.journeyId, journey.id), eq(journeyAccounts.accountId, companyId)))
      )[0]?.stageId;
    expect(await stageOf(company.brightline!)).toBe(journey.stages[1]!.id);
    // Northwind: 10 impressions reported, under the rule's 50.
    expect(await stageOf(company.northwind!)).toBe(journey.stages[0]!.id);
    const [move] = await app.db.select().from(journeyMoves).where(eq(journeyMoves.journeyId, journey.id));
    expect(move).toMatchObject({ accountId: company.brightline, reason: 'network_impressions_gte' });
  });
});
