import { randomUUID } from 'node:crypto';
import { and, count, eq, gt, lte, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cohort, CohortListReply, CohortSegmentReply } from '@rally/shared/schemas/cohorts';
import {
  cohortMembers,
  cohorts,
  companies,
  crmAccounts,
  crmContacts,
  crmListMembers,
  crmLists,
  engagementEvents,
  prospects,
  targets,
} from '../../db/schema/index.ts';
import { createTestApp, waitFor } from '../../../test/helpers.ts';
import { Browser, makeClient, signedIn } from '../../../test/http.ts';
import {
  BROWSER_UA,
  makeCadence,
  makeContent,
  makeIntegration,
  makeRep,
  makeTarget,
  rawGet,
  setVerifiedDomain,
  setWebsite,
  showing,
} from '../../../test/engagement.ts';
import { neutralAd } from '../tracking/neutral-png.ts';

/**
 * Cohorts over real HTTP (issue 18): CRUD, list paging, pause and archive through the real ad tag
 * path on loopback, syncs from filters and CRM lists, reports, and refusals (422 naming the field,
 * 401, missing permission, foreign tenant). Runs on PGlite and, with TEST_DATABASE_URL, PostgreSQL.
 */
let app: FastifyInstance;
let base: string;
let clientId: string;
let foreignId: string;
let manager: Browser;
let sdr: Browser;
let outsider: Browser;
let contentId: string;
let integrationId: number;

async function person(
  client: string,
  title: string,
  companyName: string,
  opts: { email?: string | null } = {},
): Promise<{ id: string; companyId: string }> {
  const integration = await makeIntegration(app, client);
  const [company] = await app.db
    .insert(companies)
    .values({ clientId: client, integrationId: integration, externalId: randomUUID(), name: companyName })
    .returning({ id: companies.id });
  const [row] = await app.db
    .insert(prospects)
    .values({
      clientId: client,
      integrationId: integration,
      externalId: randomUUID(),
      firstName: 'Pat',
      lastName: title.split(' ')[0] ?? 'X',
      email: opts.email === undefined ? `p-${randomUUID().slice(0, 8)}@example.com` : opts.email,
      title,
      companyId: company!.id,
    })
    .returning({ id: prospects.id });
  return { id: row!.id, companyId: company!.id };
}

const ua = { 'user-agent': BROWSER_UA };
// Counters follow an answered tag within the ingest queue's fold; the helpers wait for it.
const ad = async (token: string) => {
  const res = await fetch(`${base}/t/${token}/ad/300x250.png`, { headers: ua });
  await app.tracking.settled();
  return res;
};

async function synced(browser: Browser, id: string): Promise<Cohort> {
  return waitFor(async () => {
    const res = await browser.get(`/v1/api/cohort/${id}`);
    const c = res.json() as Cohort;
    return c.sync_state === 'done' || c.sync_state === 'failed' ? c : null;
  });
}

async function create(body: Record<string, unknown>, browser = manager): Promise<Cohort> {
  const res = await browser.post('/v1/rest/cohort', body);
  expect(res.statusCode, res.body).toBe(201);
  return synced(browser, (res.json() as Cohort).id);
}

beforeAll(async () => {
  app = await createTestApp();
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  clientId = await makeClient(app, 'Acme');
  foreignId = await makeClient(app, 'Foreign');
  manager = (await signedIn(app, { [clientId]: 'green_manager' })).browser;
  sdr = (await signedIn(app, { [clientId]: 'yellow_sdr' })).browser;
  outsider = (await signedIn(app, { [foreignId]: 'green_manager' })).browser;
  integrationId = await makeIntegration(app, clientId);
  contentId = await makeContent(app, clientId);
  // Four prospects: two VPs of Operations (one at Brightline, one at Northwind), a CFO, a buyer.
  const rep = await makeRep(app, clientId);
  const cadenceId = await makeCadence(app, clientId, { days: { 1: showing(contentId) } });
  const vp1 = await person(clientId, 'VP Operations', 'Brightline Freight');
  await person(clientId, 'VP Operations', 'Northwind Logistics');
  await person(clientId, 'CFO', 'Brightline Freight');
  const buyer = await person(clientId, 'Buyer', 'Harbor Supply');
  // vp1 is engaged and super in a sequence cadence; the buyer is in it too, without engagement.
  const t = await makeTarget(app, clientId, cadenceId, { repId: rep, prospectId: vp1.id });
  await app.db
    .update(targets)
    .set({ impressions: 3, clicks: 1, superDate: new Date() })
    .where(eq(targets.id, t.id));
  await makeTarget(app, clientId, cadenceId, { repId: rep, prospectId: buyer.id });
});
afterAll(() => app.close());

describe('creating, reading and syncing', () => {
  it('estimates a filter audience before saving: contacts and accounts', async () => {
    const all = await manager.post(`/v1/marx/client/${clientId}/cohort/pre_sync`, {
      source_kind: 'filter',
      filters: {},
    });
    expect(all.statusCode, all.body).toBe(200);
    expect(all.json()).toEqual({ contacts: 4, accounts: 4 });
    const vps = await manager.post(`/v1/marx/client/${clientId}/cohort/pre_sync`, {
      source_kind: 'filter',
      filters: { title: 'vp' },
    });
    expect(vps.json()).toEqual({ contacts: 2, accounts: 2 });
    const engaged = await manager.post(`/v1/marx/client/${clientId}/cohort/pre_sync`, {
      source_kind: 'filter',
      filters: { engagement: 'engaged', superprospect: true },
    });
    expect(engaged.json()).toEqual({ contacts: 1, accounts: 1 });
    const notEngaged = await manager.post(`/v1/marx/client/${clientId}/cohort/pre_sync`, {
      source_kind: 'filter',
      filters: { engagement: 'not_engaged', company: 'brightline' },
    });
    expect(notEngaged.json()).toEqual({ contacts: 1, accounts: 1 });
  });

  it('creates a filter cohort, syncs its members with ad tags, and lists them', async () => {
    const cohort = await create({
      name: 'Operations leaders',
      source_kind: 'filter',
      filters: { title: 'VP' },
      content_id: contentId,
    });
    expect(cohort).toMatchObject({
      name: 'Operations leaders',
      source_kind: 'filter',
      status: 'active',
      sync_state: 'done',
      size: 2,
      accounts: 2,
      content_id: contentId,
      filters: { title: 'VP' },
    });
    expect(cohort.last_synced_at).not.toBeNull();
    const seg = await manager.get(`/v1/rest/cohort/${cohort.id}/segment?page=1&page_size=10`);
    expect(seg.statusCode).toBe(200);
    const body = seg.json() as CohortSegmentReply;
    expect(body.total).toBe(2);
    expect(body.items.map((m) => m.title)).toEqual(['VP Operations', 'VP Operations']);
    expect(body.items[0]!.ad_tag).toMatch(/^\/t\/[\w-]+\/ad\/300x250\.png$/);
    // The cohort's cadence is hidden from the cadence list.
    const cadences = await manager.get('/sc/cadence');
    expect((cadences.json() as { name: string }[]).map((c) => c.name)).not.toContain(
      'Cohort: Operations leaders',
    );
    // GET /rest/cohort/{id} answers the same cohort.
    const again = await manager.get(`/v1/rest/cohort/${cohort.id}`);
    expect(again.json()).toMatchObject({ id: cohort.id, size: 2 });
  });

  it('a second sync adds nobody twice and drops members who left the source', async () => {
    const cohort = await create({
      name: 'Brightline',
      source_kind: 'filter',
      filters: { company: 'Brightline' },
    });
    expect(cohort.size).toBe(2);
    const again = await manager.get(`/v1/marx/action/client/${clientId}/cohort/${cohort.id}/sync`);
    expect(again.statusCode, again.body).toBe(200);
    expect((await synced(manager, cohort.id)).size).toBe(2);
    const narrowed = await manager.patch(`/v1/rest/cohort/${cohort.id}`, {
      filters: { company: 'Brightline', title: 'CFO' },
    });
    expect(narrowed.statusCode, narrowed.body).toBe(200);
    const after = await synced(manager, cohort.id);
    expect(after).toMatchObject({ size: 1, accounts: 1 });
  });

  it('creates a cohort from a CRM list: unmatched contacts become prospects with ad tags', async () => {
    const [account] = await app.db
      .insert(crmAccounts)
      .values({ clientId, integrationId, externalId: 'A1', name: 'Harbor Supply' })
      .returning();
    const [list] = await app.db
      .insert(crmLists)
      .values({ clientId, integrationId, externalId: 'L1', name: 'Webinar attendees', kind: 'campaign' })
      .returning();
    const known = await person(clientId, 'Head of Logistics', 'Harbor Supply');
    const contacts = await app.db
      .insert(crmContacts)
      .values([
        {
          clientId,
          integrationId,
          externalId: 'C1',
          email: 'k@example.com',
          title: 'COO',
          prospectId: known.id,
        },
        {
          clientId,
          integrationId,
          externalId: 'C2',
          email: 'new@example.com',
          firstName: 'Noor',
          lastName: 'Haddad',
          title: 'Director of Supply',
          accountId: account!.id,
        },
      ])
      .returning();
    await app.db.insert(crmListMembers).values(
      contacts.map((c) => ({
        clientId,
        listId: list!.id,
        memberExternalId: c.externalId,
        contactId: c.id,
      })),
    );
    const estimate = await manager.post(`/v1/marx/client/${clientId}/cohort/pre_sync`, {
      source_kind: 'crm_list',
      crm_list_id: list!.id,
    });
    expect(estimate.json()).toEqual({ contacts: 2, accounts: 1 });
    const cohort = await create({ name: 'Webinar', source_kind: 'crm_list', crm_list_id: list!.id });
    expect(cohort).toMatchObject({ size: 2, crm_list_name: 'Webinar attendees', source_kind: 'crm_list' });
    const seg = (await manager.get(`/v1/rest/cohort/${cohort.id}/segment`)).json() as CohortSegmentReply;
    expect(seg.items.map((m) => m.last_name).sort()).toEqual(['Haddad', 'Head']);
    const [linked] = await app.db.select().from(crmContacts).where(eq(crmContacts.externalId, 'C2'));
    expect(linked!.prospectId).not.toBeNull();
    // Synced again: nobody is added twice, no prospect is made twice.
    await manager.get(`/v1/marx/action/client/${clientId}/cohort/${cohort.id}/sync`);
    expect((await synced(manager, cohort.id)).size).toBe(2);
    const [made] = await app.db
      .select({ n: count() })
      .from(prospects)
      .where(and(eq(prospects.clientId, clientId), eq(prospects.externalId, 'C2')));
    expect(made!.n).toBe(1);
  });
});

describe('pause and archive through the real tag path', () => {
  it("a paused cohort's member tag serves the neutral image and counts nothing; resuming counts again", async () => {
    const cohort = await create({
      name: 'Pause me',
      source_kind: 'filter',
      filters: { title: 'CFO' },
      content_id: contentId,
    });
    const member = ((await manager.get(`/v1/rest/cohort/${cohort.id}/segment`)).json() as CohortSegmentReply)
      .items[0]!;
    const token = member.ad_tag.split('/')[2]!;
    const impressions = async () =>
      (
        await app.db
          .select({ n: count() })
          .from(engagementEvents)
          .where(eq(engagementEvents.targetId, member.target_id))
      )[0]!.n;

    const live = Buffer.from(await (await ad(token)).arrayBuffer());
    expect(live.equals(neutralAd('300x250'))).toBe(false);
    expect(await impressions()).toBe(1);

    const paused = await manager.patch(`/v1/rest/cohort/${cohort.id}/pause`, { paused: true });
    expect(paused.statusCode, paused.body).toBe(200);
    expect(paused.json()).toMatchObject({ status: 'paused' });
    const res = await ad(token);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(neutralAd('300x250'))).toBe(true);
    const clickRes = await rawGet(`${base}/t/${token}/c`);
    await clickRes.arrayBuffer();
    await app.tracking.settled();
    expect(await impressions()).toBe(1);
    expect((await manager.get(`/v1/api/cohort/${cohort.id}`)).json()).toMatchObject({
      impressions: 1,
      clicks: 0,
    });
    // Syncs stop while paused.
    const sync = await manager.get(`/v1/marx/action/client/${clientId}/cohort/${cohort.id}/sync`);
    expect(sync.statusCode).toBe(409);
    expect(sync.json().message).toMatch(/paused/);

    const resumed = await manager.patch(`/v1/rest/cohort/${cohort.id}/pause`, { paused: false });
    expect(resumed.json()).toMatchObject({ status: 'active' });
    const again = Buffer.from(await (await ad(token)).arrayBuffer());
    expect(again.equals(neutralAd('300x250'))).toBe(false);
    expect(await impressions()).toBe(2);
    expect((await manager.get(`/v1/api/cohort/${cohort.id}`)).json()).toMatchObject({ impressions: 2 });
  });

  it("a member's click tag counts the click and makes a superprospect by the same rule as a cadence target", async () => {
    const cohort = await create({
      name: 'Click me',
      source_kind: 'filter',
      filters: { title: 'CFO' },
      content_id: contentId,
    });
    const segment = async () =>
      ((await manager.get(`/v1/rest/cohort/${cohort.id}/segment`)).json() as CohortSegmentReply).items[0]!;
    const member = await segment();
    expect(member.super_date).toBeNull();
    const clickRes = await rawGet(`${base}${member.click_tag}`);
    await clickRes.arrayBuffer();
    await app.tracking.settled();
    // ARCHITECTURE.md §5: one click makes a superprospect, whatever put the target there.
    const after = await segment();
    expect(after).toMatchObject({ clicks: 1 });
    expect(after.super_date).not.toBeNull();
    expect((await manager.get(`/v1/api/cohort/${cohort.id}`)).json()).toMatchObject({ clicks: 1, supers: 1 });
    const detail = await manager.get(`/v1/report/cohort/${cohort.id}/detailed_report`);
    expect(detail.json()).toMatchObject({ clicks: 1 });
  });

  it("a member's click on an ad without a landing page: the neutral page while the client has no website, then the website; counted each time", async () => {
    // A client of its own, so its website setting touches no other test. Cohort members have no
    // sales rep, so the cadence path's last fallback (the rep's calendar) is never there for them.
    const other = await makeClient(app, 'No Pages Co');
    const otherManager = (await signedIn(app, { [other]: 'green_manager' })).browser;
    await person(other, 'COO', 'Quarry Metals');
    const bare = await makeContent(app, other);
    const cohort = await create(
      { name: 'No landing page', source_kind: 'filter', filters: {}, content_id: bare },
      otherManager,
    );
    const member = (
      (await otherManager.get(`/v1/rest/cohort/${cohort.id}/segment`)).json() as CohortSegmentReply
    ).items[0]!;
    const clickIt = async () => {
      const res = await rawGet(`${base}${member.click_tag}`);
      await app.tracking.settled();
      return res;
    };

    const neutral = await clickIt();
    expect(neutral.status).toBe(200);
    expect(neutral.headers.get('content-type')).toMatch(/^text\/html/);
    expect(neutral.headers.get('cache-control')).toBe('no-store');
    expect(await neutral.text()).toContain('Thanks for your interest');
    expect((await otherManager.get(`/v1/api/cohort/${cohort.id}`)).json()).toMatchObject({ clicks: 1 });

    // A verified website is redirected to straight (issue 37.8; others get a page naming them).
    await setVerifiedDomain(app, other, 'quarry.example');
    await setWebsite(app, other, 'https://quarry.example');
    const redirected = await clickIt();
    await redirected.arrayBuffer();
    expect(redirected.status).toBe(302);
    expect(redirected.headers.get('location')).toBe('https://quarry.example');
    expect((await otherManager.get(`/v1/api/cohort/${cohort.id}`)).json()).toMatchObject({
      clicks: 2,
      supers: 1,
    });
    const events = await app.db
      .select({ n: count() })
      .from(engagementEvents)
      .where(and(eq(engagementEvents.targetId, member.target_id), eq(engagementEvents.type, 'click')));
    expect(events[0]!.n).toBe(2);
  });

  it('an archived cohort is hidden unless show_archived, read-only with a 409, and restores its status', async () => {
    const cohort = await create({ name: 'Archive me', source_kind: 'filter', filters: { title: 'Buyer' } });
    await manager.patch(`/v1/rest/cohort/${cohort.id}/pause`, { paused: true });
    const archived = await manager.patch(`/v1/rest/cohort/${cohort.id}/archive`, { archived: true });
    expect(archived.statusCode, archived.body).toBe(200);
    expect(archived.json()).toMatchObject({ status: 'archived', status_before_archive: 'paused' });

    const names = async (query: string) =>
      (
        (await manager.get(`/v1/report/client/${clientId}/cohort?${query}`)).json() as CohortListReply
      ).items.map((c) => c.name);
    expect(await names('page_size=100')).not.toContain('Archive me');
    expect(await names('page_size=100&show_archived=true')).toContain('Archive me');

    for (const [method, url, body] of [
      ['patch', `/v1/rest/cohort/${cohort.id}`, { name: 'Renamed' }],
      ['patch', `/v1/rest/cohort/${cohort.id}/pause`, { paused: false }],
    ] as const) {
      const res = await manager[method](url, body);
      expect(res.statusCode, url).toBe(409);
      expect(res.json().message).toMatch(/archived and read-only: restore it/);
    }
    const sync = await manager.get(`/v1/marx/action/client/${clientId}/cohort/${cohort.id}/sync`);
    expect(sync.statusCode).toBe(409);
    // Its members' ads are stopped too.
    const member = ((await manager.get(`/v1/rest/cohort/${cohort.id}/segment`)).json() as CohortSegmentReply)
      .items[0]!;
    const png = Buffer.from(await (await ad(member.ad_tag.split('/')[2]!)).arrayBuffer());
    expect(png.equals(neutralAd('300x250'))).toBe(true);

    const restored = await manager.patch(`/v1/rest/cohort/${cohort.id}/archive`, { archived: false });
    expect(restored.json()).toMatchObject({ status: 'paused', status_before_archive: null });
    const renamed = await manager.patch(`/v1/rest/cohort/${cohort.id}`, { name: 'Renamed' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ name: 'Renamed' });
  });
});

describe('the cohort list', () => {
  let listClient: string;
  let lister: Browser;
  beforeAll(async () => {
    listClient = await makeClient(app, 'Lister');
    lister = (await signedIn(app, { [listClient]: 'purple_owner' })).browser;
    await person(listClient, 'Analyst', 'Solo Co');
    for (const name of ['Delta', 'alpha', 'Charlie', 'bravo', 'Echo team']) {
      const res = await lister.post('/v1/rest/cohort', { name, source_kind: 'filter', filters: {} });
      expect(res.statusCode).toBe(201);
    }
  });
  const page = async (query: string) => {
    const res = await lister.get(`/v1/report/client/${listClient}/cohort?${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as CohortListReply;
  };

  it('sorts by name both ways (case-insensitive) and pages', async () => {
    const first = await page('sort_field=name&order=asc&page=1&page_size=2');
    expect(first).toMatchObject({ total: 5, page: 1, page_size: 2 });
    expect(first.items.map((c) => c.name)).toEqual(['alpha', 'bravo']);
    expect((await page('sort_field=name&order=asc&page=2&page_size=2')).items.map((c) => c.name)).toEqual([
      'Charlie',
      'Delta',
    ]);
    expect((await page('sort_field=name&order=asc&page=3&page_size=2')).items.map((c) => c.name)).toEqual([
      'Echo team',
    ]);
    expect((await page('sort_field=name&order=desc&page_size=1')).items.map((c) => c.name)).toEqual([
      'Echo team',
    ]);
  });

  it('defaults to newest first, and filters by a name substring', async () => {
    expect((await page('')).items.map((c) => c.name)).toEqual([
      'Echo team',
      'bravo',
      'Charlie',
      'alpha',
      'Delta',
    ]);
    const found = await page('name=HARL');
    expect(found).toMatchObject({ total: 1 });
    expect(found.items[0]!.name).toBe('Charlie');
    expect((await page('name=%25')).total).toBe(0);
  });

  it('also answers under GET /rest/cohort and sorts by size', async () => {
    const res = await lister.get('/v1/rest/cohort?sort_field=size&order=desc&page_size=5');
    expect(res.statusCode).toBe(200);
    expect((res.json() as CohortListReply).total).toBe(5);
  });
});

describe('reports', () => {
  it('detailed report, audience by title and company, and impact by date', async () => {
    const cohort = await create({
      name: 'Report me',
      source_kind: 'filter',
      filters: {},
      content_id: contentId,
    });
    const seg = ((await manager.get(`/v1/rest/cohort/${cohort.id}/segment`)).json() as CohortSegmentReply)
      .items;
    const token = seg.find((m) => m.title === 'CFO')!.ad_tag.split('/')[2]!;
    await ad(token);
    await ad(token);

    const detail = await sdr.get(`/v1/report/cohort/${cohort.id}/detailed_report`);
    expect(detail.statusCode, detail.body).toBe(200);
    expect(detail.json()).toMatchObject({ size: cohort.size, impressions: 2, clicks: 0, engaged_members: 1 });

    const audience = await sdr.get(`/v1/report/cohort/${cohort.id}/audience`);
    expect(audience.statusCode).toBe(200);
    const a = audience.json() as {
      by_title: { label: string; members: number }[];
      by_company: { label: string }[];
    };
    expect(a.by_title.find((r) => r.label === 'VP Operations')?.members).toBe(2);
    expect(a.by_company.map((r) => r.label)).toContain('Brightline Freight');

    const now = Math.floor(Date.now() / 1000);
    const impact = await sdr.get(
      `/v1/report/cohort/${cohort.id}/impact/by_date?from=${now - 86_400}&to=${now + 86_400}`,
    );
    expect(impact.statusCode, impact.body).toBe(200);
    expect(impact.json()).toMatchObject({ total: { impressions: 2, clicks: 0, views: 0 } });
    const days = impact.json().by_date as { date: string; impressions: number }[];
    expect(days.length).toBeGreaterThanOrEqual(2);
    expect(days.filter((d) => d.impressions > 0)).toEqual([
      { date: new Date().toISOString().slice(0, 10), impressions: 2, clicks: 0, views: 0 },
    ]);
    const defaults = await sdr.get(`/v1/report/cohort/${cohort.id}/impact/by_date`);
    expect(defaults.json().total.impressions).toBe(2);
  });
});

describe('refusals', () => {
  it('422 naming the field', async () => {
    const cases: [string, string, Record<string, unknown> | undefined, string][] = [
      ['post', '/v1/rest/cohort', { source_kind: 'filter' }, 'body.name'],
      ['post', '/v1/rest/cohort', { name: 'x', source_kind: 'crm_list' }, 'body.crm_list_id'],
      ['post', '/v1/rest/cohort', { name: 'x', source_kind: 'nope' }, 'body.source_kind'],
      ['post', '/v1/rest/cohort', { name: 'x', source_kind: 'csv' }, 'body.source_kind'],
      ['post', '/v1/rest/cohort', { name: 'x'.repeat(121), source_kind: 'filter' }, 'body.name'],
      [
        'post',
        '/v1/rest/cohort',
        { name: 'x', source_kind: 'filter', filters: { title: 1 } },
        'body.filters.title',
      ],
      [
        'post',
        '/v1/rest/cohort',
        { name: 'x', source_kind: 'filter', filters: { color: 'red' } },
        'body.filters',
      ],
      [
        'post',
        '/v1/rest/cohort',
        { name: 'x', source_kind: 'crm_list', crm_list_id: randomUUID() },
        'body.crm_list_id',
      ],
      [
        'post',
        '/v1/rest/cohort',
        { name: 'x', source_kind: 'filter', content_id: randomUUID() },
        'body.content_id',
      ],
      [
        'post',
        `/v1/marx/client/${clientId}/cohort/pre_sync`,
        { source_kind: 'filter', filters: { engagement: 'x' } },
        'body.filters.engagement',
      ],
      ['get', `/v1/report/client/${clientId}/cohort?page_size=0`, undefined, 'querystring.page_size'],
      ['get', `/v1/report/client/${clientId}/cohort?page=x`, undefined, 'querystring.page'],
      ['get', `/v1/report/client/${clientId}/cohort?sort_field=color`, undefined, 'querystring.sort_field'],
      ['get', `/v1/report/client/${clientId}/cohort?order=up`, undefined, 'querystring.order'],
      [
        'get',
        `/v1/report/client/${clientId}/cohort?show_archived=yes`,
        undefined,
        'querystring.show_archived',
      ],
      ['get', '/v1/api/cohort/nope', undefined, 'params.id'],
      ['get', '/v1/rest/cohort/nope', undefined, 'params.id'],
      ['get', '/v1/rest/cohort?order=up', undefined, 'querystring.order'],
      ['get', `/v1/rest/cohort/${randomUUID()}/segment?page_size=0`, undefined, 'querystring.page_size'],
      ['get', `/v1/marx/action/client/${clientId}/cohort/nope/sync`, undefined, 'params.id'],
      ['get', '/v1/report/cohort/nope/detailed_report', undefined, 'params.id'],
      ['get', '/v1/report/cohort/nope/audience', undefined, 'params.id'],
      ['get', `/v1/report/cohort/${randomUUID()}/impact/by_date?from=12`, undefined, 'querystring.from'],
      // From alone runs to now: no longer than COHORT_IMPACT_MAX_DAYS (400) either.
      [
        'get',
        `/v1/report/cohort/${randomUUID()}/impact/by_date?from=946684800`,
        undefined,
        'querystring.from',
      ],
      [
        'get',
        `/v1/report/cohort/${randomUUID()}/impact/by_date?from=1800000000&to=1700000000`,
        undefined,
        'querystring.to',
      ],
    ];
    for (const [method, url, body, field] of cases) {
      const res = method === 'get' ? await manager.get(url) : await manager.post(url, body);
      expect(res.statusCode, `${url} ${JSON.stringify(body)} ${res.body}`).toBe(422);
      expect(res.json().errors[0].field, url).toBe(field);
    }
    const cohort = await create({ name: 'Valid', source_kind: 'filter', filters: {} });
    for (const [url, body, field] of [
      [`/v1/rest/cohort/${cohort.id}/pause`, { paused: 'yes' }, 'body.paused'],
      [`/v1/rest/cohort/${cohort.id}/archive`, {}, 'body.archived'],
      [`/v1/rest/cohort/${cohort.id}`, { name: '' }, 'body.name'],
      [`/v1/rest/cohort/${cohort.id}`, { crm_list_id: randomUUID() }, 'body.crm_list_id'],
    ] as const) {
      const res = await manager.patch(url, body);
      expect(res.statusCode, `${url} ${res.body}`).toBe(422);
      expect(res.json().errors[0].field).toBe(field);
    }
  });

  it('401 when signed out', async () => {
    const anon = new Browser(app);
    anon.clientId = clientId;
    for (const url of [`/v1/report/client/${clientId}/cohort`, `/v1/api/cohort/${randomUUID()}`]) {
      expect((await anon.get(url)).statusCode).toBe(401);
    }
    expect((await anon.post('/v1/rest/cohort', { name: 'x', source_kind: 'filter' })).statusCode).toBe(401);
  });

  it('an SDR reads cohorts and reports but cannot create or change them (cohort.write)', async () => {
    const cohort = await create({ name: 'SDR view', source_kind: 'filter', filters: {} });
    expect((await sdr.get(`/v1/report/client/${clientId}/cohort`)).statusCode).toBe(200);
    expect((await sdr.get(`/v1/rest/cohort/${cohort.id}/segment`)).statusCode).toBe(200);
    const writes = [
      sdr.post('/v1/rest/cohort', { name: 'x', source_kind: 'filter' }),
      sdr.patch(`/v1/rest/cohort/${cohort.id}`, { name: 'x' }),
      sdr.patch(`/v1/rest/cohort/${cohort.id}/pause`, { paused: true }),
      sdr.patch(`/v1/rest/cohort/${cohort.id}/archive`, { archived: true }),
      sdr.post(`/v1/marx/client/${clientId}/cohort/pre_sync`, { source_kind: 'filter' }),
      sdr.get(`/v1/marx/action/client/${clientId}/cohort/${cohort.id}/sync`),
    ];
    for (const res of await Promise.all(writes)) {
      expect(res.statusCode).toBe(403);
      expect(res.json().message).toMatch(/cohort\.write/);
    }
    expect((await manager.get(`/v1/api/cohort/${cohort.id}`)).json()).toMatchObject({
      name: 'SDR view',
      status: 'active',
    });
  });

  it("another client's cohort is not found, and its client is refused", async () => {
    const mine = await create({ name: 'Mine', source_kind: 'filter', filters: {} });
    for (const url of [
      `/v1/api/cohort/${mine.id}`,
      `/v1/rest/cohort/${mine.id}`,
      `/v1/rest/cohort/${mine.id}/segment`,
      `/v1/report/cohort/${mine.id}/detailed_report`,
      `/v1/report/cohort/${mine.id}/audience`,
      `/v1/report/cohort/${mine.id}/impact/by_date`,
      `/v1/marx/action/client/${foreignId}/cohort/${mine.id}/sync`,
    ]) {
      const res = await outsider.get(url);
      expect(res.statusCode, url).toBe(404);
    }
    for (const [url, body] of [
      [`/v1/rest/cohort/${mine.id}`, { name: 'stolen' }],
      [`/v1/rest/cohort/${mine.id}/pause`, { paused: true }],
      [`/v1/rest/cohort/${mine.id}/archive`, { archived: true }],
    ] as const) {
      expect((await outsider.patch(url, body)).statusCode, url).toBe(404);
    }
    const list = (
      await outsider.get(`/v1/report/client/${foreignId}/cohort?show_archived=true`)
    ).json() as CohortListReply;
    expect(list.items.map((c) => c.id)).not.toContain(mine.id);
    // The outsider naming our client: 403.
    const res = await outsider.get(`/v1/report/client/${clientId}/cohort`, { clientId });
    expect(res.statusCode).toBe(403);
    // A foreign CRM list cannot be a source.
    const [foreignList] = await app.db
      .insert(crmLists)
      .values({
        clientId: foreignId,
        integrationId: await makeIntegration(app, foreignId),
        externalId: 'F1',
        name: 'Theirs',
        kind: 'list',
      })
      .returning();
    const steal = await manager.post(`/v1/marx/client/${clientId}/cohort/pre_sync`, {
      source_kind: 'crm_list',
      crm_list_id: foreignList!.id,
    });
    expect(steal.statusCode).toBe(422);
    expect(steal.json().errors[0].field).toBe('body.crm_list_id');
    expect((await manager.get(`/v1/api/cohort/${mine.id}`)).json()).toMatchObject({
      name: 'Mine',
      status: 'active',
    });
  });
});

describe("another client's cadence in a cohort's filters (issue 20, found by the tenant walk)", () => {
  it('is refused with a 422 naming filters.cadence_id on estimate, create and change, and nothing is stored', async () => {
    const theirs = await makeCadence(app, foreignId, { name: 'Their cadence' });
    const ours = await makeCadence(app, clientId, { name: 'Our cadence' });
    const mine = await create({ name: 'Filtered', source_kind: 'filter', filters: { cadence_id: ours } });
    const before = await app.db.select({ n: count() }).from(cohorts).where(eq(cohorts.clientId, clientId));
    const attempts = [
      manager.post(`/v1/marx/client/${clientId}/cohort/pre_sync`, {
        source_kind: 'filter',
        filters: { cadence_id: theirs },
      }),
      manager.post('/v1/rest/cohort', {
        name: 'Stolen',
        source_kind: 'filter',
        filters: { cadence_id: theirs },
      }),
      manager.patch(`/v1/rest/cohort/${mine.id}`, { filters: { cadence_id: theirs } }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json().errors[0]).toEqual({
        field: 'body.filters.cadence_id',
        message: 'is not a cadence of this client',
      });
    }
    const after = await app.db.select({ n: count() }).from(cohorts).where(eq(cohorts.clientId, clientId));
    expect(after).toEqual(before);
    expect(((await manager.get(`/v1/api/cohort/${mine.id}`)).json() as Cohort).filters).toEqual({
      cadence_id: ours,
    });
  });
});

describe('a sync that died half-way (its job is taken up again)', () => {
  it('goes on from the stored cursor and ends with every member once; running it again changes nothing', async () => {
    const crashClient = await makeClient(app, 'Crash Co');
    const owner = (await signedIn(app, { [crashClient]: 'purple_owner' })).browser;
    for (let i = 0; i < 24; i++) await person(crashClient, 'Crash Buyer', `Company ${i % 6}`);
    const res = await owner.post('/v1/rest/cohort', {
      name: 'Crash',
      source_kind: 'filter',
      filters: { title: 'crash' },
    });
    const cohort = await synced(owner, (res.json() as Cohort).id);
    expect(cohort.size).toBe(24);

    // The state a job leaves when its process is killed after 10 of 24 members: the members
    // past the cursor are not there, the cohort says running with its cursor.
    const rows = await app.db
      .select({ prospectId: cohortMembers.prospectId, targetId: cohortMembers.targetId })
      .from(cohortMembers)
      .where(eq(cohortMembers.cohortId, cohort.id))
      .orderBy(cohortMembers.prospectId);
    const cursor = rows[9]!.prospectId;
    await app.db
      .delete(cohortMembers)
      .where(and(eq(cohortMembers.cohortId, cohort.id), gt(cohortMembers.prospectId, cursor)));
    await app.db
      .update(cohorts)
      .set({
        syncState: 'running',
        syncProgress: {
          done: 10,
          total: 24,
          cursor,
          // The job began before its first chunk: the sync that made the 24 members.
          started_at: cohort.created_at,
        } as never,
      })
      .where(eq(cohorts.id, cohort.id));

    await app.cohorts.runSync({ cohortId: cohort.id });
    const after = (await owner.get(`/v1/api/cohort/${cohort.id}`)).json() as Cohort;
    expect(after).toMatchObject({ sync_state: 'done', size: 24 });
    const count = async () => {
      const [m] = await app.db
        .select({
          n: sql<number>`count(*)::int`,
          d: sql<number>`count(distinct ${cohortMembers.prospectId})::int`,
        })
        .from(cohortMembers)
        .where(eq(cohortMembers.cohortId, cohort.id));
      const [cad] = await app.db
        .select({ id: cohorts.cadenceId })
        .from(cohorts)
        .where(eq(cohorts.id, cohort.id));
      const [t] = await app.db
        .select({ n: sql<number>`count(*)::int` })
        .from(targets)
        .where(eq(targets.cadenceId, cad!.id));
      return { members: Number(m!.n), distinct: Number(m!.d), targets: Number(t!.n) };
    };
    expect(await count()).toEqual({ members: 24, distinct: 24, targets: 24 });
    // The members written before the crash kept their ad tags (their targets).
    const kept = await app.db
      .select({ targetId: cohortMembers.targetId })
      .from(cohortMembers)
      .where(and(eq(cohortMembers.cohortId, cohort.id), lte(cohortMembers.prospectId, cursor)));
    expect(kept.map((k) => k.targetId).sort()).toEqual(
      rows
        .slice(0, 10)
        .map((r) => r.targetId)
        .sort(),
    );

    // The queue retrying a job that already finished: nothing changes.
    await app.cohorts.runSync({ cohortId: cohort.id });
    expect(await count()).toEqual({ members: 24, distinct: 24, targets: 24 });
  });
});

describe('the members table sorts by its columns (issue 42 item 11)', () => {
  // A client of its own, so the other tests' prospects do not join its cohorts.
  let sortClient: string;
  let sorter: Browser;
  let cohortId: string;
  beforeAll(async () => {
    sortClient = await makeClient(app, 'Sorter');
    sorter = (await signedIn(app, { [sortClient]: 'green_manager' })).browser;
    await person(sortClient, 'VP Operations', 'Brightline Freight');
    await person(sortClient, 'VP Operations', 'Northwind Logistics');
    await person(sortClient, 'CFO', 'Brightline Freight');
    await person(sortClient, 'Buyer', 'Harbor Supply');
    cohortId = (await create({ name: 'Sorted', source_kind: 'filter', filters: {} }, sorter)).id;
    // The buyer has seen the ad the most.
    const all = (await sorter.get(`/v1/rest/cohort/${cohortId}/segment`)).json() as CohortSegmentReply;
    const buyer = all.items.find((m) => m.title === 'Buyer')!;
    await app.db.update(targets).set({ impressions: 7 }).where(eq(targets.id, buyer.target_id));
  });
  const segment = async (q: string) => {
    const res = await sorter.get(`/v1/rest/cohort/${cohortId}/segment?${q}`);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as CohortSegmentReply).items;
  };
  const titles = async (q: string) => (await segment(q)).map((m) => m.title);

  it('sorts by name, title, company and counts, either way, page after page', async () => {
    // Last names are the title's first word: Buyer, CFO, VP, VP.
    expect(await titles('sort=name')).toEqual(['Buyer', 'CFO', 'VP Operations', 'VP Operations']);
    expect(await titles('sort=title&order=desc')).toEqual(['VP Operations', 'VP Operations', 'CFO', 'Buyer']);
    expect((await segment('sort=company')).map((m) => m.company_name)).toEqual([
      'Brightline Freight',
      'Brightline Freight',
      'Harbor Supply',
      'Northwind Logistics',
    ]);
    expect((await segment('sort=impressions')).map((m) => m.impressions)).toEqual([7, 0, 0, 0]);
    expect((await segment('sort=impressions&order=asc')).map((m) => m.impressions)).toEqual([0, 0, 0, 7]);
    const pages = [
      ...(await titles('sort=name&page_size=2&page=1')),
      ...(await titles('sort=name&page_size=2&page=2')),
    ];
    expect(pages).toEqual(['Buyer', 'CFO', 'VP Operations', 'VP Operations']);
  });

  it('a bad sort is a 422 naming the field; another client is refused (403) or not found (404)', async () => {
    for (const [q, field] of [
      ['sort=revenue', 'querystring.sort'],
      ['sort=name&order=sideways', 'querystring.order'],
    ] as const) {
      const res = await sorter.get(`/v1/rest/cohort/${cohortId}/segment?${q}`);
      expect(res.statusCode, q).toBe(422);
      expect(res.json().errors[0].field, q).toBe(field);
    }
    // The outsider naming this client: 403; asking in their own client: the cohort is not found.
    const named = await outsider.get(`/v1/rest/cohort/${cohortId}/segment?sort=name`, {
      clientId: sortClient,
    });
    expect(named.statusCode).toBe(403);
    expect((await outsider.get(`/v1/rest/cohort/${cohortId}/segment?sort=name`)).statusCode).toBe(404);
  });
});
