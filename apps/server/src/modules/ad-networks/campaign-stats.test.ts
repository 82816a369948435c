import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import {
  adAudiences,
  adCampaignStats,
  adCampaigns,
  adNetworkConnections,
  auditLog,
} from '../../db/schema/index.ts';
import { makeClient, signedIn } from '../../../test/http.ts';
import type { Browser } from '../../../test/http.ts';
import { connectMetaDirectly, makeCohort, metaTestApp } from '../../../test/ad-network-kit.ts';
import { makeContent } from '../../../test/engagement.ts';
import { startFakeMeta } from '../../../test/fakes/meta.ts';
import type { FakeMeta } from '../../../test/fakes/meta.ts';
import { STATS_REVISION_DAYS } from './campaign-stats.ts';

/**
 * Issue 39 "Results": "Daily stats per campaign and ad (impressions, reach, clicks, spend) pulled by
 * a job into Rally, idempotent per day, with late corrections applied" and "stats for a day pulled
 * twice (stored once) and corrected later", over real HTTP against the strict Meta fake's insights.
 */
let fake: FakeMeta;
let app: FastifyInstance;
let mine: string;
let foreign: string;
let manager: Browser;
let sdr: Browser;
let stranger: Browser;
let viewer: Browser;
let id: string;
let adIds: string[];
let connectionId: string;
let plan: Record<string, unknown>;
const DAY = 86_400_000;
const starts = new Date(Date.now() + DAY);
const dayOf = (n: number) => new Date(starts.getTime() + n * DAY).toISOString().slice(0, 10);
/** "Today" for the pulls: 40 days into the campaign. */
const now = new Date(starts.getTime() + 40 * DAY);

beforeAll(async () => {
  fake = await startFakeMeta();
  app = await metaTestApp(fake);
  mine = await makeClient(app, 'Mine');
  foreign = await makeClient(app, 'Foreign');
  manager = (await signedIn(app, { [mine]: 'green_manager' })).browser;
  sdr = (await signedIn(app, { [mine]: 'yellow_sdr' })).browser;
  stranger = (await signedIn(app, { [foreign]: 'purple_owner' })).browser;
  viewer = (await signedIn(app, { [mine]: 'grey_viewer' })).browser;
  const connection = await connectMetaDirectly(app, mine, {
    accessToken: fake.mintToken(60 * 24 * 3600),
    expiresAt: new Date(Date.now() + 60 * 24 * 3600_000).toISOString(),
  });
  connectionId = connection.id;
  await app.db
    .update(adNetworkConnections)
    .set({ pageId: '2001', pageName: 'Acme on Facebook' })
    .where(eq(adNetworkConnections.id, connection.id));
  const { cohortId } = await makeCohort(app, mine, 'Buyers', 120);
  const [audience] = await app.db
    .insert(adAudiences)
    .values({
      clientId: mine,
      connectionId,
      sourceKind: 'cohort',
      cohortId,
      name: 'Buyers',
      adAccountId: 'act_1001',
    })
    .returning();
  await app.adNetworks.push(audience!.id);
  const contentId = await makeContent(app, mine, { landingPageUrl: 'https://acme.test/offer' });
  plan = {
    audience_id: audience!.id,
    content_id: contentId,
    name: 'Buyers Q1',
    objective: 'traffic',
    budget_kind: 'daily',
    budget_minor: 2_500,
    starts_at: starts.toISOString(),
  };
  const made = await manager.post('/v1/ad-networks/campaigns', plan);
  expect(made.statusCode).toBe(201);
  id = made.json().id;
  await app.adCampaigns.sync(id);
  const c = (await app.db.select().from(adCampaigns).where(eq(adCampaigns.id, id)))[0]!;
  adIds = c.ads.map((a) => a.adId!);
  expect(adIds).toHaveLength(2);
  // 40 days of delivery on both ads; day 7 had none on the second (no row, as Meta omits it).
  for (let d = 0; d < 40; d++)
    for (const [i, ad] of adIds.entries()) {
      if (d === 7 && i === 1) continue;
      fake.insights.setDay(ad, dayOf(d), {
        impressions: 1000 + d,
        reach: 800 + d,
        clicks: 10 + i,
        spend: `${12 + i}.${String(d).padStart(2, '0')}`,
      });
    }
});
afterAll(() => fake.close());

const stored = async () => app.db.select().from(adCampaignStats).where(eq(adCampaignStats.campaignId, id));

describe('network campaign results', () => {
  it('pulls every day of every ad from the start, spend in cents and the account currency', async () => {
    const pulled = await app.adCampaignStats.pull(id, now);
    expect(pulled).toEqual({ since: dayOf(0), until: dayOf(40), rows: 79 });
    const rows = await stored();
    expect(rows).toHaveLength(79);
    const first = rows.find((r) => r.networkAdId === adIds[1] && r.day === dayOf(3))!;
    expect(first).toMatchObject({ impressions: 1003, reach: 803, clicks: 11, spendMinor: 1303 });
    const res = await manager.get(`/v1/ad-networks/campaigns/${id}/stats`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.currency).toBe('USD');
    expect(body.days).toHaveLength(40);
    expect(body.days[0]).toEqual({
      day: dayOf(0),
      impressions: 2000,
      reach: 1600,
      clicks: 21,
      spend_minor: 2500,
    });
    expect(body.days[7]).toMatchObject({ impressions: 1007, clicks: 10, spend_minor: 1207 });
    const spend = rows.reduce((n, r) => n + r.spendMinor, 0);
    expect(body.totals.spend_minor).toBe(spend);
    expect(body.ads.map((a: { label: string }) => a.label)).toEqual(
      expect.arrayContaining(['Feed (square) (1080x1080)', 'Feed link and right column (1200x628)']),
    );
    expect(body.pulled_at).toBe(now.toISOString());
  });

  it('a day pulled twice is stored once; a later correction replaces it; only recent days are asked again', async () => {
    const calls = fake.requests.filter((r) => r.path.endsWith('/insights')).length;
    await app.adCampaignStats.pull(id, now);
    expect(await stored()).toHaveLength(79);
    // Meta revises day 35 (within the revision window) and day 2 (outside it: not asked for again).
    fake.insights.setDay(adIds[0]!, dayOf(35), { impressions: 5, reach: 5, clicks: 0, spend: '0.50' });
    fake.insights.setDay(adIds[0]!, dayOf(2), { impressions: 9, reach: 9, clicks: 0, spend: '0.09' });
    const later = new Date(now.getTime() + DAY);
    const pulled = await app.adCampaignStats.pull(id, later);
    expect(pulled?.since).toBe(dayOf(41 - STATS_REVISION_DAYS));
    const rows = await stored();
    expect(rows).toHaveLength(79);
    expect(rows.find((r) => r.networkAdId === adIds[0] && r.day === dayOf(35))).toMatchObject({
      impressions: 5,
      spendMinor: 50,
    });
    expect(rows.find((r) => r.networkAdId === adIds[0] && r.day === dayOf(2))).toMatchObject({
      impressions: 1002,
    });
    expect(fake.requests.filter((r) => r.path.endsWith('/insights')).length).toBeGreaterThan(calls);
  });

  it('two pulls at once store each day once', async () => {
    await Promise.all([
      app.adCampaignStats.pull(id, now),
      app.adCampaignStats.pull(id, now),
      app.adCampaignStats.pull(id, now),
    ]);
    expect(await stored()).toHaveLength(79);
  });

  it('the value report weighs the networks’ spend in the range beside Rally’s fee', async () => {
    const from = Math.floor(Date.parse(`${dayOf(10)}T00:00:00Z`) / 1000);
    const to = Math.floor(Date.parse(`${dayOf(20)}T00:00:00Z`) / 1000);
    const res = await manager.get(`/v1/report/client/${mine}/value_report?from=${from}&to=${to}`);
    expect(res.statusCode, res.body).toBe(200);
    const inRange = (await stored()).filter((r) => r.day >= dayOf(10) && r.day < dayOf(20));
    const cents = inRange.reduce((n, r) => n + r.spendMinor, 0);
    expect(cents).toBeGreaterThan(0);
    expect(res.json()).toMatchObject({
      spend_cents: 0,
      spend_currency: 'USD',
      network_spend_cents: cents,
      network_spend_other: [],
      pipeline_per_spend: 0,
    });
    // Another client's report does not see this spend.
    const theirs = await stranger.get(`/v1/report/client/${foreign}/value_report?from=${from}&to=${to}`);
    expect(theirs.json()).toMatchObject({ network_spend_cents: 0, pipeline_per_spend: null });
  });

  it('the reports list each network campaign with what its network reported on the range’s days', async () => {
    const from = Math.floor(Date.parse(`${dayOf(10)}T00:00:00Z`) / 1000);
    const to = Math.floor(Date.parse(`${dayOf(20)}T00:00:00Z`) / 1000);
    const res = await manager.get(`/v1/report/client/${mine}/networks?from=${from}&to=${to}`);
    expect(res.statusCode, res.body).toBe(200);
    const inRange = (await stored()).filter((r) => r.day >= dayOf(10) && r.day < dayOf(20));
    const row = res.json().rows.find((r: { campaign_id: string }) => r.campaign_id === id);
    expect(row).toMatchObject({
      network: 'meta',
      name: 'Buyers Q1',
      audience_name: 'Buyers',
      currency: 'USD',
      days: 10,
      impressions: inRange.reduce((n, r) => n + r.impressions, 0),
      clicks: inRange.reduce((n, r) => n + r.clicks, 0),
      spend_minor: inRange.reduce((n, r) => n + r.spendMinor, 0),
    });
    expect(res.json().totals).toEqual([
      { currency: 'USD', impressions: row.impressions, clicks: row.clicks, spend_minor: row.spend_minor },
    ]);
    const bad = await manager.get(`/v1/report/client/${mine}/networks?to=soon`);
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('querystring.to');
    expect((await viewer.get(`/v1/report/client/${mine}/networks`)).statusCode).toBe(403);
    const foreignRead = await stranger.get(`/v1/report/client/${mine}/networks`);
    expect(foreignRead.statusCode).toBe(403);
    expect(foreignRead.body).not.toContain('Buyers Q1');
    expect((await stranger.get(`/v1/report/client/${foreign}/networks`)).json().rows).toEqual([]);
  });

  it('exports the days as CSV, named in the audit log', async () => {
    const res = await sdr.get(`/v1/ad-networks/campaigns/${id}/stats.csv`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    const lines = res.body.trim().split('\r\n');
    expect(lines[0]).toBe('Day,Impressions,Reach,Clicks,Spend (USD)');
    expect(lines[1]).toBe(`${dayOf(0)},2000,1600,21,25.00`);
    expect(lines).toHaveLength(41);
    const audit = await app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.clientId, mine), eq(auditLog.action, 'export.downloaded')));
    expect(
      audit.some((a) => (a.details as { filename?: string }).filename?.startsWith('campaign-results-')),
    ).toBe(true);
  });

  it('refuses bad input naming the field, a campaign not at the network, and other clients', async () => {
    const bad = await manager.get('/v1/ad-networks/campaigns/nope/stats');
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('params.id');
    expect((await manager.post('/v1/ad-networks/campaigns/nope/stats/pull')).statusCode).toBe(422);
    expect((await stranger.get(`/v1/ad-networks/campaigns/${id}/stats`)).statusCode).toBe(404);
    expect((await stranger.get(`/v1/ad-networks/campaigns/${id}/stats.csv`)).statusCode).toBe(404);
    expect((await stranger.post(`/v1/ad-networks/campaigns/${id}/stats/pull`)).statusCode).toBe(404);
    // Planned but not made at the network yet (no sync ran): nothing to pull, nothing stored.
    const planned = await manager.post('/v1/ad-networks/campaigns', { ...plan, name: 'Not yet' });
    expect(planned.statusCode).toBe(201);
    const early = await manager.post(`/v1/ad-networks/campaigns/${planned.json().id}/stats/pull`);
    expect(early.statusCode).toBe(409);
    expect(early.json().message).toMatch(/not at the network yet/);
    const empty = (await manager.get(`/v1/ad-networks/campaigns/${planned.json().id}/stats`)).json();
    expect(empty).toMatchObject({ days: [], ads: [], totals: { impressions: 0, clicks: 0, spend_minor: 0 } });
  });

  it('an SDR reads the results but cannot pull them (network quota is for cohort.write)', async () => {
    expect((await sdr.get(`/v1/ad-networks/campaigns/${id}/stats`)).statusCode).toBe(200);
    expect((await sdr.post(`/v1/ad-networks/campaigns/${id}/stats/pull`)).statusCode).toBe(403);
    const res = await manager.post(`/v1/ad-networks/campaigns/${id}/stats/pull`);
    expect(res.statusCode).toBe(200);
    expect(res.json().days.length).toBeGreaterThan(0);
  });

  it('a revoked token marks the connection inactive and the results say why; stored days stay', async () => {
    fake.revokeAll();
    await app.adCampaignStats.pull(id, now);
    const c = (await app.db.select().from(adCampaigns).where(eq(adCampaigns.id, id)))[0]!;
    expect(c.statsError).toMatch(/^Meta refused the results: /);
    const conn = (
      await app.db.select().from(adNetworkConnections).where(eq(adNetworkConnections.id, connectionId))
    )[0]!;
    expect(conn.isActive).toBe(false);
    expect(await stored()).toHaveLength(79);
    const read = (await manager.get(`/v1/ad-networks/campaigns/${id}/stats`)).json();
    expect(read.error).toMatch(/Meta refused the results/);
  });
});
