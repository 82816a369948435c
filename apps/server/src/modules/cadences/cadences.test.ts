import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import {
  cadenceDays,
  cadences,
  companies,
  content,
  crmActivityCounts,
  crmContacts,
  crmIntegrationSettings,
  integrations,
  prospects,
  salesReps,
  targets,
} from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { Browser, makeClient, signedIn } from '../../../test/http.ts';

/**
 * The cadence calls of SPEC.md §7 "Cadence service": list, one cadence with its days, save, change
 * status, and the superprospect audience. Data is written straight to the tables the sync and the
 * file import fill, so each count below is known.
 */
let app: FastifyInstance;
let clientId: string;
let other: string;
let owner: Browser;
let manager: Browser;
let sdr: Browser;
let viewer: Browser;
let outsider: Browser;

type Seeded = {
  integrationId: number;
  cadenceId: number;
  secondCadenceId: number;
  reps: string[];
  contentIds: string[];
};
let mine: Seeded;
let theirs: Seeded;

const COLORS = { background: '#ffffff', text: '#000000', accent: '#000000' };
const PAYLOAD = { content_html: '', footer_html: '', hero_html: '', hero_img: '' };
const DAY = 24 * 3600_000;

/**
 * A client with a Salesloft integration, two reps (one with a photo), two cadences and ten prospects:
 * "Alpha" has days 1-3 with 8 targets (day 1: 4 of which 1 inactive, 2 contacted, 2 super; day 2: 3
 * with 1 super; day 3: 1), "Beta" has day 1 with 2 targets, one of them super (a person also super in
 * Alpha, so counted twice).
 */
async function seedClient(client: string, prefix: string): Promise<Seeded> {
  const [integration] = await app.db
    .insert(integrations)
    .values({ clientId: client, source: 'salesloft', isActive: true, lastSyncedAt: new Date() })
    .returning();
  const ref = { clientId: client, integrationId: integration!.id };
  const reps = await app.db
    .insert(salesReps)
    .values([
      { ...ref, externalId: 'u1', firstName: 'Zoe', lastName: 'Photo', photoUrl: 'https://img.test/z.png' },
      { ...ref, externalId: 'u2', firstName: 'Adam', lastName: 'Plain' },
    ])
    .returning({ id: salesReps.id });
  const [alpha, beta] = await app.db
    .insert(cadences)
    .values([
      { ...ref, externalId: 'c1', name: `${prefix} Alpha`, status: 'draft', ownerId: reps[0]!.id },
      { ...ref, externalId: 'c2', name: `${prefix} Beta`, status: 'active' },
    ])
    .returning({ id: cadences.id });
  await app.db.insert(cadenceDays).values([
    { clientId: client, cadenceId: alpha!.id, dayNumber: 1 },
    { clientId: client, cadenceId: alpha!.id, dayNumber: 2 },
    { clientId: client, cadenceId: alpha!.id, dayNumber: 3 },
    { clientId: client, cadenceId: beta!.id, dayNumber: 1 },
  ]);
  const [company] = await app.db
    .insert(companies)
    .values({ ...ref, externalId: 'acme', name: `${prefix} Corp` })
    .returning({ id: companies.id });
  const people = await app.db
    .insert(prospects)
    .values(
      Array.from({ length: 10 }, (_, i) => ({
        ...ref,
        externalId: `p${i}`,
        firstName: `P${i}`,
        lastName: prefix,
        email: `p${i}@${prefix.toLowerCase()}.test`,
        title: 'Buyer',
        companyId: company!.id,
      })),
    )
    .returning({ id: prospects.id });
  const now = Date.now();
  const t = (
    i: number,
    cadenceId: number,
    day: number,
    o: { active?: boolean; contacted?: boolean; superAgo?: number } = {},
  ) => ({
    clientId: client,
    cadenceId,
    prospectId: people[i]!.id,
    salesRepId: reps[i % 2]!.id,
    dayNumber: day,
    isActive: o.active ?? true,
    contacted: o.contacted ?? false,
    impressions: o.superAgo === undefined ? 3 : 15,
    superDate: o.superAgo === undefined ? null : new Date(now - o.superAgo * DAY),
  });
  await app.db
    .insert(targets)
    .values([
      t(0, alpha!.id, 1, { superAgo: 3, contacted: true }),
      t(1, alpha!.id, 1, { superAgo: 1, contacted: true }),
      t(2, alpha!.id, 1, { active: false }),
      t(3, alpha!.id, 1),
      t(4, alpha!.id, 2, { superAgo: 2 }),
      t(5, alpha!.id, 2),
      t(6, alpha!.id, 2),
      t(7, alpha!.id, 3),
      t(0, beta!.id, 1, { superAgo: 0.5 }),
      t(8, beta!.id, 1),
    ]);
  const items = await app.db
    .insert(content)
    .values([
      {
        clientId: client,
        name: `${prefix} ad 1`,
        status: 'published',
        colors: COLORS,
        landingPagePayload: PAYLOAD,
      },
      {
        clientId: client,
        name: `${prefix} ad 2`,
        status: 'published',
        colors: COLORS,
        landingPagePayload: PAYLOAD,
      },
    ])
    .returning({ id: content.id });
  return {
    integrationId: integration!.id,
    cadenceId: alpha!.id,
    secondCadenceId: beta!.id,
    reps: reps.map((r) => r.id),
    contentIds: items.map((c) => c.id),
  };
}

beforeAll(async () => {
  app = await createTestApp();
  clientId = await makeClient(app, 'Mine');
  other = await makeClient(app, 'Theirs');
  mine = await seedClient(clientId, 'Mine');
  theirs = await seedClient(other, 'Theirs');
  owner = (await signedIn(app, { [clientId]: 'purple_owner' })).browser;
  manager = (await signedIn(app, { [clientId]: 'green_manager' })).browser;
  sdr = (await signedIn(app, { [clientId]: 'yellow_sdr' })).browser;
  viewer = (await signedIn(app, { [clientId]: 'grey_viewer' })).browser;
  // A member of the other client only.
  outsider = (await signedIn(app, { [other]: 'purple_owner' })).browser;
});

const detailUrl = (s: Seeded, id = s.cadenceId) => `/sc/cadence/${id}?integration_id=${s.integrationId}`;
const statusUrl = (status: string, s: Seeded = mine, client = clientId, id = s.cadenceId) =>
  `/sc/cadence/${id}/change_status?integration_id=${s.integrationId}&client_id=${client}&status=${status}`;
const fieldsOf = (res: { json(): unknown }) =>
  ((res.json() as { errors?: { field: string }[] }).errors ?? []).map((e) => e.field);
const statusOf = async (id: number) =>
  (await app.db.select({ s: cadences.status }).from(cadences).where(eq(cadences.id, id)))[0]?.s;

describe('GET /sc/cadence', () => {
  it('lists the client’s cadences with source, owner, day count and target counts (total, active, contacted, super)', async () => {
    const res = await sdr.get('/sc/cadence');
    expect(res.statusCode).toBe(200);
    const list = res.json() as {
      id: number;
      name: string;
      source: string;
      status: string;
      day_count: number;
      owner: { first_name: string } | null;
      counts: Record<string, number>;
      is_super: boolean;
      is_syncing: boolean;
      selected_sdrs: string[];
      client_id: string;
    }[];
    expect(list.map((c) => c.name)).toEqual(['Mine Alpha', 'Mine Beta']);
    const [alpha, beta] = list;
    expect(alpha).toMatchObject({
      id: mine.cadenceId,
      client_id: clientId,
      source: 'salesloft',
      status: 'draft',
      is_super: false,
      is_syncing: false,
      selected_sdrs: [],
      day_count: 3,
      owner: { first_name: 'Zoe' },
      counts: { total: 8, active: 7, contacted: 2, super: 3 },
    });
    expect(beta).toMatchObject({
      day_count: 1,
      owner: null,
      counts: { total: 2, active: 2, contacted: 0, super: 1 },
    });
  });

  it('"Contacted" also counts prospects the CRM records sales outreach to, as the reports do (issue 42 item 6)', async () => {
    const counts = async () =>
      Object.fromEntries(
        ((await sdr.get('/sc/cadence')).json() as { name: string; counts: { contacted: number } }[]).map(
          (c) => [c.name, c.counts.contacted],
        ),
      );
    expect(await counts()).toEqual({ 'Mine Alpha': 2, 'Mine Beta': 0 });
    // A CRM whose settings count calls as outreach: P8 (Beta) was called; P5 (Alpha) only met, which
    // is not outreach; the other client's P8 was called in its own CRM.
    const outreach = async (client: string, externalIds: Record<string, string>) => {
      const [crm] = await app.db
        .insert(integrations)
        .values({ clientId: client, source: 'salesforce' })
        .returning();
      await app.db.insert(crmIntegrationSettings).values({
        integrationId: crm!.id,
        clientId: client,
        outreachActivityTypes: ['Call'],
        meetingActivityTypes: ['Meeting'],
      });
      for (const [prospectExt, type] of Object.entries(externalIds)) {
        const [p] = await app.db
          .select({ id: prospects.id })
          .from(prospects)
          .where(and(eq(prospects.clientId, client), eq(prospects.externalId, prospectExt)));
        const [c] = await app.db
          .insert(crmContacts)
          .values({
            clientId: client,
            integrationId: crm!.id,
            externalId: `cc-${prospectExt}`,
            prospectId: p!.id,
          })
          .returning();
        await app.db.insert(crmActivityCounts).values({
          clientId: client,
          integrationId: crm!.id,
          contactExternalId: `cc-${prospectExt}`,
          contactId: c!.id,
          activityType: type,
          count: 2,
          lastActivityAt: new Date(),
        });
      }
    };
    await outreach(clientId, { p8: 'Call', p5: 'Meeting' });
    await outreach(other, { p8: 'Call', p6: 'Call' });
    expect(await counts()).toEqual({ 'Mine Alpha': 2, 'Mine Beta': 1 });
  });

  it('never shows another client’s cadences; a client the user is not in is 403', async () => {
    const theirsList = (await outsider.get('/sc/cadence')).json() as { name: string }[];
    expect(theirsList.map((c) => c.name)).toEqual(['Theirs Alpha', 'Theirs Beta']);
    expect((await sdr.get('/sc/cadence', { clientId: other })).statusCode).toBe(403);
  });

  it('bad input: a malformed x-client-id is 422 naming the header', async () => {
    const res = await sdr.get('/sc/cadence', { clientId: 'not-a-uuid' });
    expect(res.statusCode).toBe(422);
    expect(fieldsOf(res)).toEqual(['headers.x-client-id']);
  });

  it('an empty client lists nothing', async () => {
    const empty = await makeClient(app, 'Empty');
    const { browser } = await signedIn(app, { [empty]: 'grey_viewer' });
    expect((await browser.get('/sc/cadence')).json()).toEqual([]);
  });
});

describe('GET /sc/cadence/{id}?integration_id', () => {
  it('SPEC.md §3 "Cadence day": each day with count_total, count_active, count_contacted, count_super and content_days', async () => {
    const res = await viewer.get(detailUrl(mine));
    expect(res.statusCode).toBe(200);
    const c = res.json();
    expect(c).toMatchObject({ id: mine.cadenceId, integration_id: mine.integrationId, name: 'Mine Alpha' });
    expect(c.counts).toEqual({ total: 8, active: 7, contacted: 2, super: 3 });
    expect(c.days).toEqual([
      {
        day_number: 1,
        count_total: 4,
        count_active: 3,
        count_contacted: 2,
        count_super: 2,
        content_days: [],
      },
      {
        day_number: 2,
        count_total: 3,
        count_active: 3,
        count_contacted: 0,
        count_super: 1,
        content_days: [],
      },
      {
        day_number: 3,
        count_total: 1,
        count_active: 1,
        count_contacted: 0,
        count_super: 0,
        content_days: [],
      },
    ]);
  });

  it('bad input: a non-numeric id or a missing integration_id is 422 naming it', async () => {
    const bad = await sdr.get(`/sc/cadence/abc?integration_id=${mine.integrationId}`);
    expect(bad.statusCode).toBe(422);
    expect(fieldsOf(bad)).toEqual(['params.id']);
    const missing = await sdr.get(`/sc/cadence/${mine.cadenceId}`);
    expect(missing.statusCode).toBe(422);
    expect(fieldsOf(missing)).toEqual(['querystring.integration_id']);
  });

  it('another integration id, or another client’s cadence, is 404; a client the user is not in is 403', async () => {
    expect(
      (await sdr.get(`/sc/cadence/${mine.cadenceId}?integration_id=${theirs.integrationId}`)).statusCode,
    ).toBe(404);
    expect((await sdr.get(detailUrl(theirs))).statusCode).toBe(404);
    expect((await sdr.get(detailUrl(theirs), { clientId: other })).statusCode).toBe(403);
  });
});

describe('PUT /sc/cadence/{id}', () => {
  it('saves ads on, selected sales reps and each day’s content with its transition actions; GET shows them', async () => {
    const body = {
      is_super: true,
      selected_sdrs: [mine.reps[1], mine.reps[0], mine.reps[1]],
      days: [
        {
          day_number: 1,
          content_days: [
            {
              content_id: mine.contentIds[0],
              day_transition_actions: [
                {
                  action_type: 'move_to_day',
                  action_rule: 'impressions_gte',
                  action_rule_value: 5,
                  target_day_number: 3,
                },
                { action_type: 'finish', action_rule: 'days_on_day_gte', action_rule_value: 14 },
              ],
            },
          ],
        },
        {
          day_number: 2,
          content_days: [{ content_id: mine.contentIds[1], day_transition_actions: [] }],
        },
      ],
    };
    const res = await manager.put(`/sc/cadence/${mine.cadenceId}`, body);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ is_super: true, selected_sdrs: [mine.reps[1], mine.reps[0]] });

    const again = (await sdr.get(detailUrl(mine))).json();
    expect(again.is_super).toBe(true);
    expect(again.selected_sdrs).toEqual([mine.reps[1], mine.reps[0]]);
    expect(again.days[0].content_days).toEqual(body.days[0]!.content_days);
    expect(again.days[1].content_days).toEqual(body.days[1]!.content_days);
    expect(again.days[2].content_days).toEqual([]);
    // Counts are untouched by a save.
    expect(again.days[0].count_total).toBe(4);

    // A day not named keeps its content; an empty selection means every rep.
    const partial = await owner.put(`/sc/cadence/${mine.cadenceId}`, {
      selected_sdrs: [],
      name: '  Renamed  ',
    });
    expect(partial.statusCode).toBe(200);
    expect(partial.json()).toMatchObject({ name: 'Renamed', selected_sdrs: [], is_super: true });
    expect(partial.json().days[0].content_days).toEqual(body.days[0]!.content_days);
    await owner.put(`/sc/cadence/${mine.cadenceId}`, { name: 'Mine Alpha' });
  });

  it('finish keeps no target day (the engine reads a clean action)', async () => {
    const res = await owner.put(`/sc/cadence/${mine.secondCadenceId}`, {
      days: [
        {
          day_number: 1,
          content_days: [
            {
              content_id: mine.contentIds[0],
              day_transition_actions: [
                {
                  action_type: 'finish',
                  action_rule: 'clicks_gte',
                  action_rule_value: 1,
                  target_day_number: 1,
                },
              ],
            },
          ],
        },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const [day] = await app.db
      .select()
      .from(cadenceDays)
      .where(and(eq(cadenceDays.cadenceId, mine.secondCadenceId), eq(cadenceDays.dayNumber, 1)));
    expect(day!.contentDays).toEqual([
      {
        content_id: mine.contentIds[0],
        day_transition_actions: [{ action_type: 'finish', action_rule: 'clicks_gte', action_rule_value: 1 }],
      },
    ]);
  });

  const oneAction = (action: Record<string, unknown>, day = 1, contentId?: string) => ({
    days: [
      {
        day_number: day,
        content_days: [{ content_id: contentId ?? mine.contentIds[0], day_transition_actions: [action] }],
      },
    ],
  });
  const path = 'body.days.0.content_days.0.day_transition_actions.0';

  it.each([
    [
      'an unknown action_type',
      { action_type: 'jump', action_rule: 'clicks_gte', action_rule_value: 1 },
      `${path}.action_type`,
    ],
    [
      'an unknown action_rule',
      { action_type: 'finish', action_rule: 'views_gte', action_rule_value: 1 },
      `${path}.action_rule`,
    ],
    [
      'a negative value',
      { action_type: 'finish', action_rule: 'clicks_gte', action_rule_value: -1 },
      `${path}.action_rule_value`,
    ],
    [
      'a value that is not a number',
      { action_type: 'finish', action_rule: 'clicks_gte', action_rule_value: '3' },
      `${path}.action_rule_value`,
    ],
    [
      'move_to_day without a day',
      { action_type: 'move_to_day', action_rule: 'clicks_gte', action_rule_value: 1 },
      `${path}.target_day_number`,
    ],
    [
      'move_to_day to a day the cadence does not have',
      { action_type: 'move_to_day', action_rule: 'clicks_gte', action_rule_value: 1, target_day_number: 9 },
      `${path}.target_day_number`,
    ],
    [
      'move_to_day to the same day',
      { action_type: 'move_to_day', action_rule: 'clicks_gte', action_rule_value: 1, target_day_number: 1 },
      `${path}.target_day_number`,
    ],
  ])('bad input: %s is 422 naming the field, and nothing is saved', async (_what, action, field) => {
    const before = (await owner.get(detailUrl(mine))).json();
    const res = await owner.put(`/sc/cadence/${mine.cadenceId}`, oneAction(action));
    expect(res.statusCode, res.body).toBe(422);
    expect(fieldsOf(res)).toContain(field);
    expect((await owner.get(detailUrl(mine))).json().days).toEqual(before.days);
  });

  it('bad input: another client’s content, another client’s rep, a day the cadence lacks, all named at once', async () => {
    const res = await owner.put(`/sc/cadence/${mine.cadenceId}`, {
      is_super: false,
      selected_sdrs: [mine.reps[0], theirs.reps[0]],
      days: [
        { day_number: 1, content_days: [{ content_id: theirs.contentIds[0], day_transition_actions: [] }] },
        { day_number: 7, content_days: [] },
      ],
    });
    expect(res.statusCode).toBe(422);
    expect(fieldsOf(res).sort()).toEqual([
      'body.days.0.content_days.0.content_id',
      'body.days.1.day_number',
      'body.selected_sdrs.1',
    ]);
    // The save is refused whole: ads stay on.
    expect((await owner.get(detailUrl(mine))).json().is_super).toBe(true);
  });

  it('bad input: the same content twice on a day, a malformed id, an empty name', async () => {
    const twice = await owner.put(`/sc/cadence/${mine.cadenceId}`, {
      days: [
        {
          day_number: 2,
          content_days: [
            { content_id: mine.contentIds[0], day_transition_actions: [] },
            { content_id: mine.contentIds[0], day_transition_actions: [] },
          ],
        },
      ],
    });
    expect(twice.statusCode).toBe(422);
    expect(fieldsOf(twice)).toEqual(['body.days.0.content_days.1.content_id']);
    const malformed = await owner.put(`/sc/cadence/${mine.cadenceId}`, { selected_sdrs: ['nope'] });
    expect(fieldsOf(malformed)).toEqual(['body.selected_sdrs.0']);
    const name = await owner.put(`/sc/cadence/${mine.cadenceId}`, { name: '   ' });
    expect(fieldsOf(name)).toEqual(['body.name']);
    expect((await owner.put('/sc/cadence/0', {})).statusCode).toBe(422);
  });

  it('permission: cadence.write is needed (SDR and viewer 403); nothing changes', async () => {
    for (const b of [sdr, viewer]) {
      const res = await b.put(`/sc/cadence/${mine.cadenceId}`, { is_super: false });
      expect(res.statusCode).toBe(403);
      expect(res.json().message).toMatch(/cadence\.write/);
    }
    expect((await owner.get(detailUrl(mine))).json().is_super).toBe(true);
  });

  it('foreign tenant: another client’s cadence is 404 from here and 403 when naming that client', async () => {
    expect((await owner.put(`/sc/cadence/${theirs.cadenceId}`, { is_super: true })).statusCode).toBe(404);
    expect(
      (await owner.put(`/sc/cadence/${theirs.cadenceId}`, { is_super: true }, { clientId: other }))
        .statusCode,
    ).toBe(403);
    const [row] = await app.db.select().from(cadences).where(eq(cadences.id, theirs.cadenceId));
    expect(row!.isSuper).toBe(false);
    // A matching integration_id query is honoured; a wrong one is 404.
    expect(
      (await owner.put(`/sc/cadence/${mine.cadenceId}?integration_id=${theirs.integrationId}`, {}))
        .statusCode,
    ).toBe(404);
    expect(
      (await owner.put(`/sc/cadence/${mine.cadenceId}?integration_id=${mine.integrationId}`, {})).statusCode,
    ).toBe(200);
  });
});

describe('PUT /sc/cadence/{id}/change_status (ARCHITECTURE.md §5: draft → active ⇄ paused → finished)', () => {
  it('walks draft → active → paused → active → finished; each answer is 204 with no body (SPEC.md §7: "nothing returned")', async () => {
    expect(await statusOf(mine.cadenceId)).toBe('draft');
    for (const status of ['active', 'paused', 'active', 'paused', 'finished']) {
      const res = await manager.put(statusUrl(status));
      expect(res.statusCode, `${status}: ${res.body}`).toBe(204);
      expect(res.body).toBe('');
      expect(await statusOf(mine.cadenceId)).toBe(status);
    }
  });

  it('a move the rules do not allow is 409 with a message; asking for the current status is a no-op 204', async () => {
    // Alpha is finished now; Beta is active.
    const back = await owner.put(statusUrl('active'));
    expect(back.statusCode).toBe(409);
    expect(back.json().message).toBe(
      'This cadence is finished and cannot become active: it is finished for good.',
    );
    const toDraft = await owner.put(statusUrl('draft', mine, clientId, mine.secondCadenceId));
    expect(toDraft.statusCode).toBe(409);
    expect(toDraft.json().message).toMatch(
      /active and cannot become draft: it can only become paused or finished/,
    );
    expect((await owner.put(statusUrl('active', mine, clientId, mine.secondCadenceId))).statusCode).toBe(204);
    expect(await statusOf(mine.secondCadenceId)).toBe('active');
    expect(await statusOf(mine.cadenceId)).toBe('finished');
  });

  it('draft cannot be paused or finished before it is active', async () => {
    await app.db.update(cadences).set({ status: 'draft' }).where(eq(cadences.id, mine.secondCadenceId));
    for (const status of ['paused', 'finished']) {
      expect((await owner.put(statusUrl(status, mine, clientId, mine.secondCadenceId))).statusCode).toBe(409);
    }
    expect(await statusOf(mine.secondCadenceId)).toBe('draft');
    await app.db.update(cadences).set({ status: 'active' }).where(eq(cadences.id, mine.secondCadenceId));
  });

  it('bad input: an unknown status, a missing integration_id or a malformed client_id is 422 naming it', async () => {
    const bogus = await owner.put(statusUrl('bogus', mine, clientId, mine.secondCadenceId));
    expect(bogus.statusCode).toBe(422);
    expect(fieldsOf(bogus)).toEqual(['querystring.status']);
    const noIntegration = await owner.put(
      `/sc/cadence/${mine.secondCadenceId}/change_status?client_id=${clientId}&status=paused`,
    );
    expect(fieldsOf(noIntegration)).toEqual(['querystring.integration_id']);
    const badClient = await owner.put(statusUrl('paused', mine, 'nope', mine.secondCadenceId));
    expect(fieldsOf(badClient)).toEqual(['querystring.client_id']);
    expect(await statusOf(mine.secondCadenceId)).toBe('active');
  });

  it('permission: an SDR is 403 and the status stays', async () => {
    const res = await sdr.put(statusUrl('paused', mine, clientId, mine.secondCadenceId));
    expect(res.statusCode).toBe(403);
    expect(await statusOf(mine.secondCadenceId)).toBe('active');
  });

  it('foreign tenant: a client_id query other than x-client-id is 403; another client’s cadence is 404', async () => {
    expect((await owner.put(statusUrl('paused', mine, other, mine.secondCadenceId))).statusCode).toBe(403);
    expect((await owner.put(statusUrl('active', theirs, clientId))).statusCode).toBe(404);
    expect(await statusOf(theirs.cadenceId)).toBe('draft');
  });
});

describe('GET /sc/cadence/super/audience', () => {
  it('lists superprospects across cadences, newest super_date first, with prospect, company, e-mail, cadence and rep; a person super in two cadences counts twice', async () => {
    const res = await sdr.get('/sc/cadence/super/audience');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ page: 1, page_size: 25, total: 4 });
    expect(
      body.items.map(
        (i: { first_name: string; cadence_name: string }) => `${i.first_name} ${i.cadence_name}`,
      ),
    ).toEqual(['P0 Mine Beta', 'P1 Mine Alpha', 'P4 Mine Alpha', 'P0 Mine Alpha']);
    expect(body.items[0]).toMatchObject({
      last_name: 'Mine',
      email: 'p0@mine.test',
      company_name: 'Mine Corp',
      sales_rep_name: 'Zoe Photo',
      impressions: 15,
      cadence_id: mine.secondCadenceId,
    });
    expect(Date.parse(body.items[0].super_date)).toBeGreaterThan(Date.parse(body.items[1].super_date));
  });

  it('pages by page and page_size (SPEC.md §9 "paged by page and page_size") and narrows to one cadence', async () => {
    const page2 = (await sdr.get('/sc/cadence/super/audience?page=2&page_size=3')).json();
    expect(page2).toMatchObject({ page: 2, page_size: 3, total: 4 });
    expect(page2.items.map((i: { first_name: string }) => i.first_name)).toEqual(['P0']);
    const alpha = (await sdr.get(`/sc/cadence/super/audience?cadence_id=${mine.cadenceId}`)).json();
    expect(alpha.total).toBe(3);
    expect(new Set(alpha.items.map((i: { cadence_id: number }) => i.cadence_id))).toEqual(
      new Set([mine.cadenceId]),
    );
  });

  it('bad input: page 0 or page_size over 100 is 422 naming it', async () => {
    const zero = await sdr.get('/sc/cadence/super/audience?page=0');
    expect(zero.statusCode).toBe(422);
    expect(fieldsOf(zero)).toEqual(['querystring.page']);
    const big = await sdr.get('/sc/cadence/super/audience?page_size=101');
    expect(fieldsOf(big)).toEqual(['querystring.page_size']);
  });

  it('foreign tenant: only the client’s own superprospects; another client’s cadence_id finds none; a client the user is not in is 403', async () => {
    const list = (await outsider.get('/sc/cadence/super/audience')).json();
    expect(list.total).toBe(4);
    expect(list.items.every((i: { last_name: string }) => i.last_name === 'Theirs')).toBe(true);
    expect((await sdr.get(`/sc/cadence/super/audience?cadence_id=${theirs.cadenceId}`)).json().total).toBe(0);
    expect((await sdr.get('/sc/cadence/super/audience', { clientId: other })).statusCode).toBe(403);
  });

  it('permission: any member may read it (a viewer too); signed out is 401', async () => {
    expect((await viewer.get('/sc/cadence/super/audience')).statusCode).toBe(200);
    expect((await new Browser(app).get('/sc/cadence/super/audience', { clientId })).statusCode).toBe(401);
  });
});

describe('OpenAPI', () => {
  it('documents the cadence calls, the audience paging and the change-status query', async () => {
    const doc = (await app.inject('/v1/docs/json')).json();
    const audience = doc.paths['/sc/cadence/super/audience'].get;
    expect(audience.description).toMatch(/page_size/);
    expect(audience.parameters.map((p: { name: string }) => p.name).sort()).toEqual([
      'cadence_id',
      'page',
      'page_size',
    ]);
    const change = doc.paths['/sc/cadence/{id}/change_status'].put;
    expect(change.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['integration_id', 'client_id', 'status']),
    );
    expect(doc.paths['/sc/cadence/{id}'].put.requestBody).toBeTruthy();
    expect(doc.paths['/sc/cadence'].get).toBeTruthy();
  });
});
