import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { unzipSync } from 'fflate';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  Campaign,
  CampaignListReply,
  PbaCohortReply,
  PbaPeopleReply,
} from '@rally/shared/schemas/campaigns';
import { cohortMembers, prospects, targets } from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { Browser, makeClient, signedIn } from '../../../test/http.ts';
import { BROWSER_UA, makeContent, makeIntegration } from '../../../test/engagement.ts';
import { neutralAd } from '../tracking/neutral-png.ts';

/**
 * Campaigns, their ad downloads and the people-based (CSV) flow over HTTP (issue 18): success, bad
 * input (422 naming the field), 401, missing permission (an SDR), foreign tenant (404). Runs on
 * PGlite and, with TEST_DATABASE_URL, PostgreSQL.
 */
let app: FastifyInstance;
let clientId: string;
let foreignId: string;
let manager: Browser;
let sdr: Browser;
let outsider: Browser;
let contentId: string;
let otherContentId: string;
let cohortId: string;
let bareCohortId: string;

const flight = { starts_on: '2026-12-01', ends_on: '2026-12-31' };

async function newCampaign(body: Record<string, unknown> = {}): Promise<Campaign> {
  const res = await manager.post('/v1/rest/campaign', {
    cohort_id: cohortId,
    name: 'Winter',
    ...flight,
    ...body,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as Campaign;
}

function pngSize(png: Uint8Array): { width: number; height: number } {
  const view = Buffer.from(png);
  expect(view.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  expect(view.subarray(12, 16).toString('ascii')).toBe('IHDR');
  return { width: view.readUInt32BE(16), height: view.readUInt32BE(20) };
}

beforeAll(async () => {
  app = await createTestApp();
  clientId = await makeClient(app, 'Acme');
  foreignId = await makeClient(app, 'Foreign');
  manager = (await signedIn(app, { [clientId]: 'green_manager' })).browser;
  sdr = (await signedIn(app, { [clientId]: 'yellow_sdr' })).browser;
  outsider = (await signedIn(app, { [foreignId]: 'green_manager' })).browser;
  contentId = await makeContent(app, clientId, { title: 'Winter ads' });
  otherContentId = await makeContent(app, clientId, { title: 'Spring ads' });
  cohortId = (
    await app.cohorts.createAndSync(clientId, {
      name: 'Everyone',
      source_kind: 'filter',
      filters: {},
      content_id: contentId,
    })
  ).id;
  bareCohortId = (
    await app.cohorts.createAndSync(clientId, { name: 'No content', source_kind: 'filter', filters: {} })
  ).id;
});
afterAll(() => app.close());

describe('campaigns: POST, PATCH, GET /v1/rest/campaign', () => {
  it("creates a cohort's flight as a draft with the cohort's content, reads and lists it", async () => {
    const made = await newCampaign();
    expect(made).toMatchObject({
      cohort_id: cohortId,
      cohort_name: 'Everyone',
      name: 'Winter',
      status: 'draft',
      starts_on: '2026-12-01',
      ends_on: '2026-12-31',
      live: false,
      content_id: contentId,
      content_name: 'Winter ads',
      download_url: `/v1/download/${made.id}`,
    });
    expect((await sdr.get(`/v1/rest/campaign/${made.id}`)).json()).toEqual(made);
    const list = (await sdr.get(`/v1/rest/campaign?cohort_id=${cohortId}`)).json() as CampaignListReply;
    expect(list.items.map((c) => c.id)).toContain(made.id);
    expect(list.items.every((c) => c.cohort_id === cohortId)).toBe(true);
    const none = (await sdr.get(`/v1/rest/campaign?cohort_id=${bareCohortId}`)).json() as CampaignListReply;
    expect(none).toMatchObject({ items: [], total: 0, page: 1, page_size: 25 });
  });

  it('changes the flight, content and status; active today is live; ended is read-only (409)', async () => {
    const made = await newCampaign({ content_id: otherContentId });
    expect(made.content_name).toBe('Spring ads');
    const today = new Date().toISOString().slice(0, 10);
    const later = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    const res = await manager.patch(`/v1/rest/campaign/${made.id}`, {
      starts_on: today,
      ends_on: later,
      status: 'active',
      name: 'Winter, live',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'active',
      live: true,
      name: 'Winter, live',
      starts_on: today,
    });
    const paused = await manager.patch(`/v1/rest/campaign/${made.id}`, { status: 'paused' });
    expect(paused.json()).toMatchObject({ status: 'paused', live: false });
    expect((await manager.patch(`/v1/rest/campaign/${made.id}`, { status: 'ended' })).statusCode).toBe(200);
    const again = await manager.patch(`/v1/rest/campaign/${made.id}`, { status: 'active' });
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toMatch(/ended/);
  });

  it('422 naming the field: dates, name, status, content', async () => {
    const made = await newCampaign();
    const cases: [string, 'post' | 'patch', Record<string, unknown>, string][] = [
      ['/v1/rest/campaign', 'post', { ends_on: '2026-11-30' }, 'body.ends_on'],
      ['/v1/rest/campaign', 'post', { ends_on: '2026-12-01' }, 'body.ends_on'],
      ['/v1/rest/campaign', 'post', { starts_on: '2026-02-30' }, 'body.starts_on'],
      ['/v1/rest/campaign', 'post', { starts_on: 'tomorrow' }, 'body.starts_on'],
      ['/v1/rest/campaign', 'post', { name: ' ' }, 'body.name'],
      ['/v1/rest/campaign', 'post', { name: 'x'.repeat(121) }, 'body.name'],
      ['/v1/rest/campaign', 'post', { status: 'running' }, 'body.status'],
      ['/v1/rest/campaign', 'post', { cohort_id: 'nope' }, 'body.cohort_id'],
      ['/v1/rest/campaign', 'post', { content_id: randomUUID() }, 'body.content_id'],
      ['/v1/rest/campaign', 'post', { cohort_id: bareCohortId, status: 'active' }, 'body.content_id'],
      [`/v1/rest/campaign/${made.id}`, 'patch', { ends_on: '2026-11-01' }, 'body.ends_on'],
      [`/v1/rest/campaign/${made.id}`, 'patch', { starts_on: '2027-01-05' }, 'body.starts_on'],
      [`/v1/rest/campaign/${made.id}`, 'patch', { surprise: 1 }, 'body'],
      [`/v1/rest/campaign/${made.id}`, 'patch', { content_id: 'x' }, 'body.content_id'],
      ['/v1/rest/campaign/not-a-uuid', 'patch', { name: 'x' }, 'params.id'],
    ];
    for (const [url, method, body, field] of cases) {
      const payload = method === 'post' ? { cohort_id: cohortId, name: 'Bad', ...flight, ...body } : body;
      const res = await manager[method](url, payload);
      expect(res.statusCode, `${JSON.stringify(body)} ${res.body}`).toBe(422);
      expect(res.json().errors[0].field, JSON.stringify(body)).toBe(field);
    }
    // Archived content cannot be picked; a cleared content cannot stay active.
    const archived = await makeContent(app, clientId, { isArchived: true });
    const res = await manager.patch(`/v1/rest/campaign/${made.id}`, { content_id: archived });
    expect(res.json().errors[0]).toEqual({
      field: 'body.content_id',
      message: expect.stringMatching(/archived/),
    });
    await manager.patch(`/v1/rest/campaign/${made.id}`, { status: 'active' });
    const clear = await manager.patch(`/v1/rest/campaign/${made.id}`, { content_id: null });
    expect(clear.json().errors[0].field).toBe('body.content_id');
    expect((await manager.get(`/v1/rest/campaign/${made.id}`)).json()).toMatchObject({
      status: 'active',
      content_id: contentId,
      ends_on: '2026-12-31',
    });
  });

  it("an archived cohort's campaigns are read-only and none can be made for it (409)", async () => {
    const cohort = await app.cohorts.createAndSync(clientId, { name: 'To archive', source_kind: 'filter' });
    const res = await manager.post('/v1/rest/campaign', { cohort_id: cohort.id, name: 'Before', ...flight });
    expect(res.statusCode).toBe(201);
    await manager.patch(`/v1/rest/cohort/${cohort.id}/archive`, { archived: true });
    const made = await manager.post('/v1/rest/campaign', { cohort_id: cohort.id, name: 'After', ...flight });
    expect(made.statusCode).toBe(409);
    expect(made.json().message).toMatch(/archived/);
    const edit = await manager.patch(`/v1/rest/campaign/${res.json().id}`, { name: 'Changed' });
    expect(edit.statusCode).toBe(409);
    await manager.patch(`/v1/rest/cohort/${cohort.id}/archive`, { archived: false });
    expect((await manager.patch(`/v1/rest/campaign/${res.json().id}`, { name: 'Changed' })).statusCode).toBe(
      200,
    );
  });

  it('401 when signed out', async () => {
    const anon = new Browser(app);
    anon.clientId = clientId;
    const made = await newCampaign();
    expect((await anon.get('/v1/rest/campaign')).statusCode).toBe(401);
    expect((await anon.get(`/v1/rest/campaign/${made.id}`)).statusCode).toBe(401);
    expect((await anon.get(`/v1/download/${made.id}`)).statusCode).toBe(401);
    expect(
      (await anon.post('/v1/rest/campaign', { cohort_id: cohortId, name: 'x', ...flight })).statusCode,
    ).toBe(401);
    expect((await anon.patch(`/v1/rest/campaign/${made.id}`, { name: 'x' })).statusCode).toBe(401);
    expect((await anon.post('/v1/rest/content/parse_pba_data', { csv: 'email\na@b.co' })).statusCode).toBe(
      401,
    );
    expect((await anon.post('/v1/rest/content/pba', { csv: 'email\na@b.co', name: 'x' })).statusCode).toBe(
      401,
    );
  });

  it('an SDR reads and downloads campaigns but cannot make or change them (cohort.write)', async () => {
    const made = await newCampaign();
    for (const res of [
      await sdr.post('/v1/rest/campaign', { cohort_id: cohortId, name: 'x', ...flight }),
      await sdr.patch(`/v1/rest/campaign/${made.id}`, { name: 'x' }),
      await sdr.post('/v1/rest/content/parse_pba_data', { csv: 'email\na@b.co' }),
      await sdr.post('/v1/rest/content/pba', { csv: 'email\na@b.co', name: 'x' }),
    ]) {
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json().message).toMatch(/cohort\.write/);
    }
    expect((await sdr.get(`/v1/download/${made.id}`)).statusCode).toBe(200);
    expect((await manager.get(`/v1/rest/campaign/${made.id}`)).json().name).toBe('Winter');
  });

  it("another client's campaign and cohort are not found; its content cannot be picked", async () => {
    const made = await newCampaign();
    for (const url of [`/v1/rest/campaign/${made.id}`, `/v1/download/${made.id}`]) {
      expect((await outsider.get(url)).statusCode, url).toBe(404);
    }
    expect((await outsider.patch(`/v1/rest/campaign/${made.id}`, { name: 'stolen' })).statusCode).toBe(404);
    const theirs = (await outsider.get('/v1/rest/campaign')).json() as CampaignListReply;
    expect(theirs.items).toEqual([]);
    const steal = await outsider.post('/v1/rest/campaign', { cohort_id: cohortId, name: 'x', ...flight });
    expect(steal.statusCode).toBe(404);
    const foreignContent = await makeContent(app, foreignId);
    const res = await manager.post('/v1/rest/campaign', {
      cohort_id: cohortId,
      name: 'x',
      ...flight,
      content_id: foreignContent,
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].field).toBe('body.content_id');
    // The outsider naming our client: 403.
    expect((await outsider.get('/v1/rest/campaign', { clientId })).statusCode).toBe(403);
    expect((await manager.get(`/v1/rest/campaign/${made.id}`)).json().name).toBe('Winter');
  });
});

describe('GET /v1/download/{id}: the ads as a zip', () => {
  it('unzips to four PNGs at the four ad sizes, named after the campaign', async () => {
    const made = await newCampaign({ name: 'Winter / Q4 "push"' });
    const res = await manager.get(`/v1/download/${made.id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toBe('attachment; filename="winter-q4-push-ads.zip"');
    const files = unzipSync(new Uint8Array(res.rawPayload));
    const sizes = Object.fromEntries(Object.entries(files).map(([name, png]) => [name, pngSize(png)]));
    expect(sizes).toEqual({
      'winter-q4-push-1080x1080.png': { width: 1080, height: 1080 },
      'winter-q4-push-1200x628.png': { width: 1200, height: 628 },
      'winter-q4-push-728x90.png': { width: 728, height: 90 },
      'winter-q4-push-300x250.png': { width: 300, height: 250 },
    });
    // The same image the content preview and ad tags draw (the shared renderer), not the neutral one.
    const png300 = files['winter-q4-push-300x250.png']!;
    expect(Buffer.from(png300).equals(neutralAd('300x250'))).toBe(false);
  }, 60_000);

  it('409 while the campaign has no content; 404 for an unknown id; 422 for a malformed one', async () => {
    const res = await manager.post('/v1/rest/campaign', {
      cohort_id: bareCohortId,
      name: 'Empty',
      ...flight,
    });
    expect(res.json().download_url).toBeNull();
    const dl = await manager.get(`/v1/download/${res.json().id}`);
    expect(dl.statusCode).toBe(409);
    expect(dl.json().message).toMatch(/no content/);
    expect((await manager.get(`/v1/download/${randomUUID()}`)).statusCode).toBe(404);
    const bad = await manager.get('/v1/download/abc');
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('params.id');
  });
});

describe('people-based ads: POST /v1/rest/content/parse_pba_data and /pba with csv', () => {
  const CSV = [
    'Email,First Name,Last Name,Company,Job Title,Notes',
    'rita@acme.example,Rita,Reyes,Acme,VP Operations,met at expo',
    'RITA@acme.example,Rita,R,Acme,,duplicate',
    'not-an-email,Sam,Stone,Initech,CFO,',
    ',Ana,Lima,Northwind,Buyer,',
    ',Bo,,,,',
    '"=HYPERLINK(""http://evil"")",Eve,Doe,,,',
  ].join('\r\n');

  it('says which rows are usable and why the others are not', async () => {
    const res = await manager.post('/v1/rest/content/parse_pba_data', { csv: CSV });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as PbaPeopleReply;
    expect(body).toMatchObject({ total: 6, usable: 2, unusable: 4, ignored_columns: ['Notes'] });
    expect(body.columns).toEqual({
      email: 'Email',
      first_name: 'First Name',
      last_name: 'Last Name',
      company: 'Company',
      title: 'Job Title',
    });
    expect(body.rows.map((r) => [r.row, r.usable, r.match])).toEqual([
      [1, true, 'email'],
      [2, false, null],
      [3, false, null],
      [4, true, 'name_company'],
      [5, false, null],
      [6, false, null],
    ]);
    expect(body.rows[1]!.reasons).toEqual(['same email as row 1']);
    // A wrong e-mail is wrong data: the row is not matched by name instead.
    expect(body.rows[2]!.reasons).toEqual(['email is not a valid e-mail address']);
    expect(body.rows[4]!.reasons[0]).toMatch(/no email, and no last name, company/);
    expect(body.rows[5]!.reasons[0]).toMatch(/not a valid e-mail/);
  });

  it('answers the check as a formula-safe CSV file with ?format=csv', async () => {
    const res = await manager.post('/v1/rest/content/parse_pba_data?format=csv', { csv: CSV });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toMatch(/people-check\.csv/);
    const rows = parse(res.body) as string[][];
    expect(rows[0]).toEqual([
      'row',
      'usable',
      'reasons',
      'email',
      'first_name',
      'last_name',
      'company',
      'title',
    ]);
    expect(rows[6]![3]).toBe(`'=hyperlink("http://evil")`);
  });

  it('reads semicolons, a byte order mark and a single name column', async () => {
    const res = await manager.post('/v1/rest/content/parse_pba_data', {
      csv: '\uFEFFName;Company\nJo Anne Smith;Globex\n',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().rows[0]).toMatchObject({
      usable: true,
      first_name: 'Jo',
      last_name: 'Anne Smith',
      company: 'Globex',
    });
  });

  it('422 naming the field: no usable columns, broken quotes, too many rows, too long, missing name', async () => {
    const rows = ['email', ...Array.from({ length: 5001 }, (_, i) => `p${i}@x.co`)].join('\n');
    for (const [body, field, message] of [
      [{ csv: 'phone,city\n1,2' }, 'body.csv', /header row/],
      [{ csv: 'email\n"a@b.co' }, 'body.csv', /could not be read/],
      [{ csv: rows }, 'body.csv', /more than 5000/],
      [{ csv: 'x'.repeat(800_001) }, 'body.csv', /at most 800000/],
      [{ csv: '' }, 'body.csv', /header/],
      [{}, 'body.csv', /required/],
      [{ csv: 'email\na@b.co', text: 'x' }, 'body.text', /either/],
    ] as const) {
      const res = await manager.post('/v1/rest/content/parse_pba_data', body);
      expect(res.statusCode, res.body.slice(0, 300)).toBe(422);
      expect(res.json().errors[0].field).toBe(field);
      expect(res.json().errors[0].message).toMatch(message);
    }
    for (const [body, field] of [
      [{ csv: 'email\na@b.co' }, 'body.name'],
      [{ csv: 'email\nnope', name: 'List' }, 'body.csv'],
      [{ csv: 'email\na@b.co', name: 'List', content_id: randomUUID() }, 'body.content_id'],
      [{ csv: 'email\na@b.co', name: 'List', target_id: randomUUID() }, 'body.target_id'],
      [{}, 'body.content_id'],
    ] as const) {
      const res = await manager.post('/v1/rest/content/pba', body);
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json().errors[0].field).toBe(field);
    }
  });

  it("makes a CSV cohort of the usable people whose ad tags serve the cohort's content", async () => {
    // Rita is already a prospect of this client (another integration): she is found, not copied. A
    // foreign client's prospect with her e-mail is never matched.
    const integration = await makeIntegration(app, clientId);
    const [rita] = await app.db
      .insert(prospects)
      .values({
        clientId,
        integrationId: integration,
        externalId: 'crm-rita',
        email: 'Rita@Acme.example',
        firstName: 'Rita',
      })
      .returning({ id: prospects.id });
    await app.db.insert(prospects).values({
      clientId: foreignId,
      integrationId: await makeIntegration(app, foreignId),
      externalId: 'crm-other',
      email: 'rita@acme.example',
    });
    const res = await manager.post('/v1/rest/content/pba', {
      csv: CSV,
      name: 'Expo list',
      content_id: contentId,
    });
    expect(res.statusCode, res.body).toBe(201);
    const made = res.json() as PbaCohortReply;
    expect(made).toMatchObject({ members: 2, skipped: 4 });
    expect(made.cohort).toMatchObject({
      name: 'Expo list',
      source_kind: 'csv',
      status: 'active',
      size: 2,
      // Rita's prospect has no company and is not changed by the list: one account (Ana's Northwind).
      accounts: 1,
      sync_state: 'done',
      content_id: contentId,
    });
    const members = await app.db
      .select({ prospectId: cohortMembers.prospectId, token: targets.token, clientId: prospects.clientId })
      .from(cohortMembers)
      .innerJoin(targets, eq(targets.id, cohortMembers.targetId))
      .innerJoin(prospects, eq(prospects.id, cohortMembers.prospectId))
      .where(eq(cohortMembers.cohortId, made.cohort.id));
    expect(members).toHaveLength(2);
    expect(members.map((m) => m.prospectId)).toContain(rita!.id);
    expect(members.every((m) => m.clientId === clientId)).toBe(true);
    // A member's ad tag draws the content through the engine (not the neutral image).
    const ad = await app.inject({
      url: `/t/${members[0]!.token}/ad/300x250.png`,
      headers: { 'user-agent': BROWSER_UA },
    });
    expect(ad.statusCode).toBe(200);
    expect(ad.headers['content-type']).toBe('image/png');
    expect(ad.rawPayload.equals(neutralAd('300x250'))).toBe(false);
    // The list again: the same prospects, nobody twice.
    const again = await manager.post('/v1/rest/content/pba', {
      csv: CSV,
      name: 'Expo list 2',
      content_id: null,
    });
    expect(again.json().members).toBe(2);
    const ana = await app.db
      .select({ id: prospects.id })
      .from(prospects)
      .where(and(eq(prospects.clientId, clientId), eq(prospects.firstName, 'Ana')));
    expect(ana).toHaveLength(1);
    // A sync of a CSV cohort keeps its members.
    await app.cohorts.runSync({ cohortId: made.cohort.id });
    expect((await manager.get(`/v1/api/cohort/${made.cohort.id}`)).json().size).toBe(2);
    // Campaigns can be planned for it.
    const campaign = await manager.post('/v1/rest/campaign', {
      cohort_id: made.cohort.id,
      name: 'Expo',
      ...flight,
    });
    expect(campaign.json()).toMatchObject({ content_id: contentId });
  }, 60_000);

  it('keeps the text uses of both calls (data-id tags, personalised texts)', async () => {
    const tags = await sdr.post('/v1/rest/content/parse_pba_data', {
      text: '<span data-id="first_name"></span>',
    });
    expect(tags.statusCode).toBe(200);
    expect(tags.json().tags[0]).toMatchObject({ id: 'first_name', count: 1 });
    const pba = await sdr.post('/v1/rest/content/pba', { content_id: contentId });
    expect(pba.statusCode).toBe(200);
    expect(pba.json().content_id).toBe(contentId);
  });
});
