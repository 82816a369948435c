import { randomUUID } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CohortSegmentReply } from '@rally/shared/schemas/cohorts';
import type {
  Journey,
  JourneyCohortsReply,
  JourneyListReply,
  JourneyMovesReply,
  JourneyViewReply,
} from '@rally/shared/schemas/journeys';
import {
  cadenceDays,
  cohortMembers,
  cohorts,
  companies,
  crmStages,
  feedItems,
  journeyAccounts,
  journeyMoves,
  journeyStages,
  journeys,
  opportunities,
  prospects,
  targets,
} from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { Browser, makeClient, signedIn } from '../../../test/http.ts';
import { BROWSER_UA, makeContent, makeIntegration } from '../../../test/engagement.ts';

/**
 * Journeys (issue 18, docs/decisions/0010): the rules at their edges, the furthest matching stage,
 * idempotent and resumable evaluation, members' ads following their account's stage, and every
 * call's success, 422 naming the field, 401, 403 and foreign tenant (404). PGlite and PostgreSQL.
 */
let app: FastifyInstance;
let clientId: string;
let foreignId: string;
let manager: Browser;
let sdr: Browser;
let viewer: Browser;
let outsider: Browser;
let anonymous: Browser;
let integrationId: number;
let c1: string;
let c2: string;
let cohortId: string;
let journey: Journey;
let foreignCohortId: string;
let foreignJourneyId: string;
let wonStageId: string;
const companyOf: Record<string, string> = {};
const targetsOf: Record<string, string[]> = {};
let loneProspect: string;

async function company(client: string, name: string): Promise<string> {
  const [row] = await app.db
    .insert(companies)
    .values({
      clientId: client,
      integrationId: await makeIntegration(app, client),
      externalId: randomUUID(),
      name,
    })
    .returning({ id: companies.id });
  return row!.id;
}

async function person(client: string, companyId: string | null, last: string): Promise<string> {
  const [row] = await app.db
    .insert(prospects)
    .values({
      clientId: client,
      integrationId: await makeIntegration(app, client),
      externalId: randomUUID(),
      firstName: 'Pat',
      lastName: last,
      email: `${last.toLowerCase()}-${randomUUID().slice(0, 6)}@example.com`,
      title: 'VP Operations',
      companyId,
    })
    .returning({ id: prospects.id });
  return row!.id;
}

async function setCounts(targetId: string, v: { impressions?: number; clicks?: number; views?: number }) {
  await app.db.update(targets).set(v).where(eq(targets.id, targetId));
}

async function stageOf(accountId: string): Promise<string | undefined> {
  const j = await read();
  const [row] = await app.db
    .select({ stageId: journeyAccounts.stageId })
    .from(journeyAccounts)
    .where(and(eq(journeyAccounts.journeyId, j.id), eq(journeyAccounts.accountId, accountId)));
  return j.stages.find((s) => s.id === row?.stageId)?.name;
}

async function read(): Promise<Journey> {
  const res = await manager.get(`/v1/rest/client/${clientId}/journey/${journey.id}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Journey;
}

const evaluate = (now?: Date) => app.journeys.evaluate(journey.id, now);

beforeAll(async () => {
  app = await createTestApp({ workers: false });
  clientId = await makeClient(app, 'Acme');
  foreignId = await makeClient(app, 'Foreign');
  manager = (await signedIn(app, { [clientId]: 'green_manager' })).browser;
  sdr = (await signedIn(app, { [clientId]: 'yellow_sdr' })).browser;
  viewer = (await signedIn(app, { [clientId]: 'grey_viewer' })).browser;
  outsider = (await signedIn(app, { [foreignId]: 'green_manager' })).browser;
  anonymous = new Browser(app);
  anonymous.clientId = clientId;
  integrationId = await makeIntegration(app, clientId);
  c1 = await makeContent(app, clientId, { title: 'Stage one ad' });
  c2 = await makeContent(app, clientId, { title: 'Stage two ad' });
  // Brightline: two members (one account); Northwind: one member; a member without a company.
  companyOf.brightline = await company(clientId, 'Brightline Freight');
  companyOf.northwind = await company(clientId, 'Northwind Logistics');
  await person(clientId, companyOf.brightline, 'Able');
  await person(clientId, companyOf.brightline, 'Baker');
  await person(clientId, companyOf.northwind, 'Cole');
  loneProspect = await person(clientId, null, 'Drake');
  const cohort = await app.cohorts.createAndSync(clientId, {
    name: 'Everyone',
    source_kind: 'filter',
    filters: {},
    content_id: c1,
  });
  cohortId = cohort.id;
  const members = await app.db
    .select({ companyId: cohortMembers.companyId, targetId: cohortMembers.targetId })
    .from(cohortMembers)
    .where(eq(cohortMembers.cohortId, cohortId));
  for (const m of members) (targetsOf[m.companyId ?? 'lone'] ??= []).push(m.targetId);
  const [won] = await app.db
    .insert(crmStages)
    .values({
      clientId,
      integrationId,
      key: 'ClosedWon',
      label: 'Closed Won',
      sortOrder: 9,
      isClosed: true,
      isWon: true,
    })
    .returning({ id: crmStages.id });
  wonStageId = won!.id;
  const foreignCohort = await app.cohorts.createAndSync(foreignId, {
    name: 'Theirs',
    source_kind: 'filter',
    filters: {},
  });
  foreignCohortId = foreignCohort.id;
  foreignJourneyId = (
    await app.journeys.create(foreignId, null, { cohort_id: foreignCohortId, name: 'Theirs' })
  ).id;
}, 120_000);
afterAll(() => app.close());

const stages = () => [
  { name: 'Unaware', content_ids: [c1] },
  {
    name: 'Aware',
    content_ids: [c2],
    rules: [
      { kind: 'impressions_gte', value: 3 },
      { kind: 'days_in_stage_gte', value: 7 },
    ],
  },
  { name: 'Engaged', rules: [{ kind: 'clicks_gte', value: 1 }] },
  { name: 'Opportunity', rules: [{ kind: 'opportunity_created' }] },
  { name: 'Customer', rules: [{ kind: 'crm_stage_reached', crm_stage_id: wonStageId }] },
];

describe('building a journey', () => {
  it('POST makes the journey; its accounts enter the first stage, members see its content', async () => {
    const res = await manager.post(`/v1/rest/client/${clientId}/journey`, {
      cohort_id: cohortId,
      name: 'Warehouse journey',
      stages: stages(),
    });
    expect(res.statusCode, res.body).toBe(201);
    journey = res.json() as Journey;
    expect(journey.stages.map((s) => [s.position, s.name])).toEqual([
      [1, 'Unaware'],
      [2, 'Aware'],
      [3, 'Engaged'],
      [4, 'Opportunity'],
      [5, 'Customer'],
    ]);
    expect(journey.stages[1]!.rules).toEqual([
      { kind: 'impressions_gte', value: 3, crm_stage_id: null, days: null },
      { kind: 'days_in_stage_gte', value: 7, crm_stage_id: null, days: null },
    ]);
    const first = await evaluate();
    expect(first).toMatchObject({ entered: 3, moved: 0 });
    const j = await read();
    expect(j.stages[0]!.accounts).toBe(3);
    expect(j.accounts).toBe(3);
    // Stage k is the cohort cadence's day k: its content is what the ad path serves.
    const days = await app.db
      .select({ day: cadenceDays.dayNumber, content: cadenceDays.contentDays })
      .from(cadenceDays)
      .innerJoin(cohorts, eq(cohorts.cadenceId, cadenceDays.cadenceId))
      .where(eq(cohorts.id, cohortId))
      .orderBy(cadenceDays.dayNumber);
    expect(days.map((d) => [d.day, d.content.map((c) => c.content_id)])).toEqual([
      [1, [c1]],
      [2, [c2]],
      [3, []],
      [4, []],
      [5, []],
    ]);
  });

  it('with no stages given, a journey gets the five default stages', async () => {
    const other = await app.cohorts.createAndSync(clientId, {
      name: 'Defaults',
      source_kind: 'filter',
      filters: {},
    });
    const res = await manager.post(`/v1/rest/client/${clientId}/journey`, {
      cohort_id: other.id,
      name: 'Defaults',
    });
    expect(res.statusCode, res.body).toBe(201);
    expect((res.json() as Journey).stages.map((s) => s.name)).toEqual([
      'Unaware',
      'Aware',
      'Engaged',
      'Opportunity',
      'Customer',
    ]);
  });

  it('POST refuses bad input naming the field (422), 401, 403 without cohort.write, 404 foreign cohort, 409', async () => {
    const url = `/v1/rest/client/${clientId}/journey`;
    const noName = await manager.post(url, { cohort_id: cohortId });
    expect(noName.statusCode).toBe(422);
    expect(noName.json().errors[0].field).toBe('body.name');
    const noValue = await manager.post(url, {
      cohort_id: cohortId,
      name: 'x',
      stages: [{ name: 'A' }, { name: 'B', rules: [{ kind: 'clicks_gte' }] }],
    });
    expect(noValue.statusCode).toBe(422);
    expect(noValue.json().errors[0].field).toBe('body.stages.1.rules.0.value');
    const foreignContent = await makeContent(app, foreignId);
    const other = await app.cohorts.createAndSync(clientId, {
      name: 'Spare',
      source_kind: 'filter',
      filters: {},
    });
    const badContent = await manager.post(url, {
      cohort_id: other.id,
      name: 'x',
      stages: [{ name: 'A', content_ids: [foreignContent] }, { name: 'B' }],
    });
    expect(badContent.statusCode).toBe(422);
    expect(badContent.json().errors[0].field).toBe('body.stages.0.content_ids.0');
    expect((await anonymous.post(url, { cohort_id: cohortId, name: 'x' })).statusCode).toBe(401);
    expect((await sdr.post(url, { cohort_id: other.id, name: 'x' })).statusCode).toBe(403);
    expect((await manager.post(url, { cohort_id: foreignCohortId, name: 'x' })).statusCode).toBe(404);
    const twice = await manager.post(url, { cohort_id: cohortId, name: 'Again' });
    expect(twice.statusCode).toBe(409);
    await manager.patch(`/v1/rest/cohort/${other.id}/archive`, { archived: true });
    const archived = await manager.post(url, { cohort_id: other.id, name: 'x' });
    expect(archived.statusCode).toBe(409);
    expect(archived.json().message).toMatch(/archived/);
  });
});

describe('rules at their edges', () => {
  it('one impression short stays; exactly at the threshold moves (summed over the account)', async () => {
    const [a, b] = targetsOf[companyOf.brightline!]!;
    await setCounts(a!, { impressions: 1 });
    await setCounts(b!, { impressions: 1 });
    expect((await evaluate()).moved).toBe(0);
    expect(await stageOf(companyOf.brightline!)).toBe('Unaware');
    await setCounts(b!, { impressions: 2 });
    expect((await evaluate()).moved).toBe(1);
    expect(await stageOf(companyOf.brightline!)).toBe('Aware');
    // Both members' ads now show the Aware stage's content (cadence day 2).
    const rows = await app.db
      .select({ day: targets.dayNumber })
      .from(targets)
      .where(inArray(targets.id, [a!, b!]));
    expect(rows.map((r) => r.day)).toEqual([2, 2]);
  });

  it('an account matching two later stages lands in the furthest; running again moves nothing', async () => {
    const [n] = targetsOf[companyOf.northwind!]!;
    await setCounts(n!, { impressions: 5, clicks: 1 });
    const run = await evaluate();
    expect(run.moved).toBe(1);
    expect(await stageOf(companyOf.northwind!)).toBe('Engaged');
    const [move] = await app.db
      .select()
      .from(journeyMoves)
      .where(and(eq(journeyMoves.journeyId, journey.id), eq(journeyMoves.accountId, companyOf.northwind!)));
    expect(move).toMatchObject({ fromStage: 'Unaware', toStage: 'Engaged', reason: 'clicks_gte' });
    const before = (await app.db.select().from(journeyMoves).where(eq(journeyMoves.journeyId, journey.id)))
      .length;
    expect(await evaluate()).toMatchObject({ moved: 0, entered: 0, aligned: 0 });
    expect(await evaluate()).toMatchObject({ moved: 0 });
    const after = (await app.db.select().from(journeyMoves).where(eq(journeyMoves.journeyId, journey.id)))
      .length;
    expect(after).toBe(before);
  });

  it('days in stage: the day before stays, at N days it moves (a member without a company is its own account)', async () => {
    const now = new Date();
    await app.db
      .update(journeyAccounts)
      .set({ stageEnteredAt: new Date(now.getTime() - 7 * 86_400_000 + 60_000) })
      .where(eq(journeyAccounts.accountId, loneProspect));
    expect((await evaluate(now)).moved).toBe(0);
    await app.db
      .update(journeyAccounts)
      .set({ stageEnteredAt: new Date(now.getTime() - 7 * 86_400_000) })
      .where(eq(journeyAccounts.accountId, loneProspect));
    expect((await evaluate(now)).moved).toBe(1);
    expect(await stageOf(loneProspect)).toBe('Aware');
  });

  it('an opportunity created, then a CRM stage reached, move the account on', async () => {
    const [opp] = await app.db
      .insert(opportunities)
      .values({
        clientId,
        integrationId,
        externalId: randomUUID(),
        name: 'Northwind rollout',
        accountName: 'Northwind Logistics',
        companyId: companyOf.northwind!,
        amountCents: 100_000,
        stage: 'Prospecting',
        crmCreatedAt: new Date(),
      })
      .returning({ id: opportunities.id });
    expect((await evaluate()).moved).toBe(1);
    expect(await stageOf(companyOf.northwind!)).toBe('Opportunity');
    await app.db
      .update(opportunities)
      .set({ stage: 'ClosedWon', stageId: wonStageId, isClosed: true, isWon: true })
      .where(eq(opportunities.id, opp!.id));
    expect((await evaluate()).moved).toBe(1);
    expect(await stageOf(companyOf.northwind!)).toBe('Customer');
  });

  it('moves are forward only: an account never goes back when its counts fall', async () => {
    const [a, b] = targetsOf[companyOf.brightline!]!;
    await setCounts(a!, { impressions: 0 });
    await setCounts(b!, { impressions: 0 });
    expect((await evaluate()).moved).toBe(0);
    expect(await stageOf(companyOf.brightline!)).toBe('Aware');
  });

  it('a run that died after a chunk goes on after it: accounts before the cursor wait for the next run', async () => {
    const [a] = targetsOf[companyOf.brightline!]!;
    await setCounts(a!, { clicks: 2 });
    // As if the last run had committed every chunk up to the largest account id, then died.
    const ids = [companyOf.brightline!, companyOf.northwind!, loneProspect].sort();
    await app.db
      .update(journeys)
      .set({ evalCursor: ids[ids.length - 1]! })
      .where(eq(journeys.id, journey.id));
    expect((await evaluate()).moved).toBe(0);
    const [row] = await app.db
      .select({ c: journeys.evalCursor })
      .from(journeys)
      .where(eq(journeys.id, journey.id));
    expect(row!.c).toBeNull();
    expect((await evaluate()).moved).toBe(1);
    expect(await stageOf(companyOf.brightline!)).toBe('Engaged');
  });

  it('each move is a feed item, and the cohort page shows each member its stage', async () => {
    const items = await app.db
      .select()
      .from(feedItems)
      .where(and(eq(feedItems.clientId, clientId), eq(feedItems.type, 'journey')));
    expect(items.length).toBe(
      (await app.db.select().from(journeyMoves).where(eq(journeyMoves.journeyId, journey.id))).length,
    );
    expect(items.map((i) => i.data.company_name)).toContain('Northwind Logistics');
    // The feed row opens the journey: it carries its cohort (issue 42 item 7).
    expect(new Set(items.map((i) => i.data.cohort_id))).toEqual(new Set([cohortId]));
    const seg = await manager.get(`/v1/rest/cohort/${cohortId}/segment`);
    const members = (seg.json() as CohortSegmentReply).items;
    expect(members.find((m) => m.last_name === 'Cole')?.stage?.name).toBe('Customer');
    expect(members.find((m) => m.last_name === 'Able')?.stage?.name).toBe('Engaged');
    expect(members.find((m) => m.last_name === 'Drake')?.stage?.name).toBe('Aware');
  });
});

describe('changing a journey', () => {
  it('PUT renames and reorders: accounts keep their stage, members follow its new position', async () => {
    const j = await read();
    const [unaware, aware, engaged, opportunity, customer] = j.stages;
    const body = {
      name: 'Renamed journey',
      stages: [unaware, engaged, aware, opportunity, customer].map((s) => ({
        id: s!.id,
        name: s!.name === 'Engaged' ? 'Interested' : s!.name,
        content_ids: s!.content_ids,
        rules: s!.rules.map((r) => ({ kind: r.kind, value: r.value, crm_stage_id: r.crm_stage_id })),
        match: s!.match,
      })),
    };
    const res = await manager.put(`/v1/rest/client/${clientId}/journey/${journey.id}`, body);
    expect(res.statusCode, res.body).toBe(200);
    const after = res.json() as Journey;
    expect(after.name).toBe('Renamed journey');
    expect(after.stages.map((s) => s.name)).toEqual([
      'Unaware',
      'Interested',
      'Aware',
      'Opportunity',
      'Customer',
    ]);
    expect(await stageOf(companyOf.brightline!)).toBe('Interested');
    const [a] = targetsOf[companyOf.brightline!]!;
    const [t] = await app.db.select({ day: targets.dayNumber }).from(targets).where(eq(targets.id, a!));
    expect(t!.day).toBe(2);
  });

  it('PUT refuses removing a stage that holds accounts (422), a foreign stage id (422), 401, 403, 404, 409', async () => {
    const j = await read();
    const url = `/v1/rest/client/${clientId}/journey/${journey.id}`;
    const keep = (s: Journey['stages'][number]) => ({
      id: s.id,
      name: s.name,
      content_ids: s.content_ids,
      rules: s.rules.map((r) => ({ kind: r.kind, value: r.value, crm_stage_id: r.crm_stage_id })),
      match: s.match,
    });
    const dropped = await manager.put(url, { name: 'x', stages: j.stages.slice(0, 2).map(keep) });
    expect(dropped.statusCode).toBe(422);
    expect(dropped.json().errors[0]).toMatchObject({ field: 'body.stages' });
    const foreignStage = await manager.put(url, {
      name: 'x',
      stages: [...j.stages.map(keep), { id: randomUUID(), name: 'Ghost' }],
    });
    expect(foreignStage.statusCode).toBe(422);
    expect(foreignStage.json().errors[0].field).toBe('body.stages.5.id');
    const firstRule = await manager.put(url, {
      name: 'x',
      stages: [{ name: 'A', rules: [{ kind: 'clicks_gte', value: 1 }] }, { name: 'B' }],
    });
    expect(firstRule.statusCode).toBe(422);
    expect(firstRule.json().errors[0].field).toBe('body.stages.0.rules');
    const body = { name: 'x', stages: j.stages.map(keep) };
    expect((await anonymous.put(url, body)).statusCode).toBe(401);
    expect((await sdr.put(url, body)).statusCode).toBe(403);
    expect(
      (await manager.put(`/v1/rest/client/${clientId}/journey/${foreignJourneyId}`, body)).statusCode,
    ).toBe(404);
    await manager.patch(`/v1/rest/cohort/${cohortId}/archive`, { archived: true });
    const archived = await manager.put(url, body);
    expect(archived.statusCode).toBe(409);
    // An archived (or paused) cohort's journey moves nobody.
    expect(await evaluate()).toMatchObject({ journeys: 0, moved: 0 });
    await manager.patch(`/v1/rest/cohort/${cohortId}/archive`, { archived: false });
  });
});

describe('reading journeys and their reports', () => {
  it('GET list and one: 200, 401, 403 for a non-member, 404 foreign tenant', async () => {
    const list = await viewer.get(`/v1/rest/client/${clientId}/journey`);
    expect(list.statusCode, list.body).toBe(200);
    const items = (list.json() as JourneyListReply).items;
    expect(items.map((i) => i.name)).toContain('Renamed journey');
    expect(items.every((i) => i.client_id === clientId)).toBe(true);
    expect((await anonymous.get(`/v1/rest/client/${clientId}/journey`)).statusCode).toBe(401);
    expect((await outsider.get(`/v1/rest/client/${clientId}/journey`, { clientId })).statusCode).toBe(403);
    expect((await manager.get(`/v1/rest/client/${clientId}/journey/${journey.id}`)).statusCode).toBe(200);
    expect((await anonymous.get(`/v1/rest/client/${clientId}/journey/${journey.id}`)).statusCode).toBe(401);
    expect((await manager.get(`/v1/rest/client/${clientId}/journey/${foreignJourneyId}`)).statusCode).toBe(
      404,
    );
    expect((await manager.get(`/v1/rest/client/${clientId}/journey/not-a-uuid`)).json().errors[0].field).toBe(
      'params.id',
    );
  });

  it('GET journey/cohorts: the cohorts with their journey; 401, 403 without reports.read', async () => {
    const url = `/v1/report/client/${clientId}/journey/cohorts`;
    const res = await manager.get(url);
    expect(res.statusCode, res.body).toBe(200);
    const row = (res.json() as JourneyCohortsReply).items.find((i) => i.cohort_id === cohortId);
    expect(row).toMatchObject({ journey_id: journey.id, journey_name: 'Renamed journey', stages: 5 });
    expect((res.json() as JourneyCohortsReply).items.some((i) => i.cohort_id === foreignCohortId)).toBe(
      false,
    );
    expect((await anonymous.get(url)).statusCode).toBe(401);
    expect((await viewer.get(url)).statusCode).toBe(403);
    expect((await manager.get(`/v1/report/client/${foreignId}/journey/cohorts`)).statusCode).toBe(403);
  });

  it('journey view: accounts by stage now and per day (a funnel over time); 422, 401, 403, 404', async () => {
    const url = `/v1/report/client/${clientId}/cohort/${cohortId}/journey/view`;
    const res = await manager.get(url);
    expect(res.statusCode, res.body).toBe(200);
    const view = res.json() as JourneyViewReply;
    expect(view.stages.map((s) => [s.name, s.accounts])).toEqual([
      ['Unaware', 0],
      ['Interested', 1],
      ['Aware', 1],
      ['Opportunity', 0],
      ['Customer', 1],
    ]);
    expect(view.by_date).toHaveLength(30);
    // Today's column (all moves happened today) is where the accounts are now.
    expect(view.by_date.at(-1)!.accounts).toEqual([0, 1, 1, 0, 1]);
    expect(view.by_date[0]!.accounts).toEqual([0, 0, 0, 0, 0]);
    expect(view.moves_in_range).toBeGreaterThanOrEqual(5);
    const bad = await manager.get(`${url}?from=200&to=100`);
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('querystring.from');
    expect((await anonymous.get(url)).statusCode).toBe(401);
    expect((await viewer.get(url)).statusCode).toBe(403);
    expect(
      (await manager.get(`/v1/report/client/${clientId}/cohort/${foreignCohortId}/journey/view`)).statusCode,
    ).toBe(404);
  });

  it('journey moves: newest first with names; 422, 401, 403, 404', async () => {
    const url = `/v1/report/client/${clientId}/cohort/${cohortId}/journey/view/moves`;
    const res = await manager.get(`${url}?page_size=2`);
    expect(res.statusCode, res.body).toBe(200);
    const moves = res.json() as JourneyMovesReply;
    expect(moves.items).toHaveLength(2);
    expect(moves.total).toBeGreaterThanOrEqual(5);
    const all = (await manager.get(url)).json() as JourneyMovesReply;
    expect(all.items.map((m) => m.company_name)).toEqual(
      expect.arrayContaining(['Northwind Logistics', 'Brightline Freight', 'Pat Drake']),
    );
    const bad = await manager.get(`${url}?page_size=0`);
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('querystring.page_size');
    expect((await anonymous.get(url)).statusCode).toBe(401);
    expect((await viewer.get(url)).statusCode).toBe(403);
    expect(
      (await manager.get(`/v1/report/client/${clientId}/cohort/${foreignCohortId}/journey/view/moves`))
        .statusCode,
    ).toBe(404);
  });
});

describe('the landing page views rule at its edge', () => {
  it('one view short stays; exactly at the threshold moves (views through POST /v1/rest/tracked/view, summed over the account)', async () => {
    // A cohort of its own (one account, two members), so the journey above is not disturbed.
    const vantage = await company(clientId, 'Vantage Views');
    await person(clientId, vantage, 'Ennis');
    await person(clientId, vantage, 'Ford');
    const cohort = await app.cohorts.createAndSync(clientId, {
      name: 'Visitors',
      source_kind: 'filter',
      filters: { company: 'Vantage Views' },
      content_id: c1,
    });
    const created = await manager.post(`/v1/rest/client/${clientId}/journey`, {
      cohort_id: cohort.id,
      name: 'Visits journey',
      stages: [
        { name: 'Unaware', content_ids: [c1] },
        { name: 'Visited', content_ids: [c2], rules: [{ kind: 'views_gte', value: 3 }] },
      ],
    });
    expect(created.statusCode, created.body).toBe(201);
    const visits = created.json() as Journey;
    const run = () => app.journeys.evaluate(visits.id);
    const stage = async () => {
      const [row] = await app.db
        .select({ name: journeyStages.name })
        .from(journeyAccounts)
        .innerJoin(journeyStages, eq(journeyStages.id, journeyAccounts.stageId))
        .where(and(eq(journeyAccounts.journeyId, visits.id), eq(journeyAccounts.accountId, vantage)));
      return row?.name;
    };
    expect(await run()).toMatchObject({ entered: 1, moved: 0 });
    const tokens = (
      await app.db
        .select({ token: targets.token })
        .from(cohortMembers)
        .innerJoin(targets, eq(targets.id, cohortMembers.targetId))
        .where(eq(cohortMembers.cohortId, cohort.id))
    ).map((r) => r.token);
    expect(tokens).toHaveLength(2);
    // A landing page reports a visitor's view (SPEC.md §7 POST /rest/tracked/view).
    const view = async (token: string) => {
      const res = await anonymous.post(
        '/v1/rest/tracked/view',
        { token },
        { csrf: false, clientId: null, headers: { 'user-agent': BROWSER_UA } },
      );
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ recorded: true });
      await app.tracking.settled();
    };
    await view(tokens[0]!);
    await view(tokens[1]!);
    // Two views of three: one short.
    expect((await run()).moved).toBe(0);
    expect(await stage()).toBe('Unaware');
    await view(tokens[1]!);
    expect((await run()).moved).toBe(1);
    expect(await stage()).toBe('Visited');
    const [move] = await app.db
      .select()
      .from(journeyMoves)
      .where(and(eq(journeyMoves.journeyId, visits.id), eq(journeyMoves.accountId, vantage)));
    expect(move).toMatchObject({ fromStage: 'Unaware', toStage: 'Visited', reason: 'views_gte' });
    // Both members are now served the Visited stage's ads (cadence day 2).
    const days = await app.db
      .select({ day: targets.dayNumber })
      .from(targets)
      .where(inArray(targets.token, tokens));
    expect(days.map((d) => d.day)).toEqual([2, 2]);
  });
});
