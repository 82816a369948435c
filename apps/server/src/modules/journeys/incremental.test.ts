import { randomUUID } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Journey } from '@rally/shared/schemas/journeys';
import {
  cohortMembers,
  cohorts,
  companies,
  crmStages,
  journeyAccounts,
  journeyDirtyAccounts,
  journeyStages,
  opportunities,
  opportunityStageHistory,
  prospects,
  targets,
} from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import type { Browser } from '../../../test/http.ts';
import { makeClient, signedIn } from '../../../test/http.ts';
import { makeContent, makeIntegration } from '../../../test/engagement.ts';

/**
 * Incremental evaluation (docs/decisions/0036): after a full run, a run reads only the accounts whose
 * data changed (counted in `evaluated`), each kind of change its rules read lists its account, and a
 * full run comes back after its period or a change of stages. PGlite and PostgreSQL.
 */
let app: FastifyInstance;
let clientId: string;
let manager: Browser;
let integrationId: number;
let cohortId: string;
let cadenceId: number;
let journey: Journey;
let wonStageId: string;
const account: Record<string, string> = {};
const targetsOf: Record<string, string[]> = {};

async function company(name: string): Promise<string> {
  const [row] = await app.db
    .insert(companies)
    .values({ clientId, integrationId, externalId: randomUUID(), name })
    .returning({ id: companies.id });
  return row!.id;
}

async function person(companyId: string | null, last: string): Promise<string> {
  const [row] = await app.db
    .insert(prospects)
    .values({
      clientId,
      integrationId,
      externalId: randomUUID(),
      firstName: 'Pat',
      lastName: last,
      companyId,
    })
    .returning({ id: prospects.id });
  return row!.id;
}

async function stageOf(accountId: string): Promise<string | undefined> {
  const [row] = await app.db
    .select({ name: journeyStages.name })
    .from(journeyAccounts)
    .innerJoin(journeyStages, eq(journeyStages.id, journeyAccounts.stageId))
    .where(and(eq(journeyAccounts.journeyId, journey.id), eq(journeyAccounts.accountId, accountId)));
  return row?.name;
}

const run = (now?: Date) => app.journeys.evaluate(journey.id, now);

beforeAll(async () => {
  app = await createTestApp({ workers: false });
  clientId = await makeClient(app, 'Quayside');
  manager = (await signedIn(app, { [clientId]: 'green_manager' })).browser;
  integrationId = await makeIntegration(app, clientId);
  const content = await makeContent(app, clientId, { title: 'Quayside ad' });
  account.alpha = await company('Quayside Alpha');
  account.beta = await company('Quayside Beta');
  account.gamma = await company('Quayside Gamma');
  await person(account.alpha, 'Able');
  await person(account.alpha, 'Baker');
  await person(account.beta, 'Cole');
  await person(account.gamma, 'Drake');
  const cohort = await app.cohorts.createAndSync(clientId, {
    name: 'Quayside',
    source_kind: 'filter',
    filters: { company: 'Quayside' },
    content_id: content,
  });
  cohortId = cohort.id;
  const [c] = await app.db
    .select({ cadenceId: cohorts.cadenceId })
    .from(cohorts)
    .where(eq(cohorts.id, cohortId));
  cadenceId = Number(c!.cadenceId);
  const members = await app.db
    .select({ companyId: cohortMembers.companyId, targetId: cohortMembers.targetId })
    .from(cohortMembers)
    .where(eq(cohortMembers.cohortId, cohortId));
  for (const m of members) (targetsOf[m.companyId!] ??= []).push(m.targetId);
  const [won] = await app.db
    .insert(crmStages)
    .values({ clientId, integrationId, key: 'Won', label: 'Won', sortOrder: 9, isClosed: true, isWon: true })
    .returning({ id: crmStages.id });
  wonStageId = won!.id;
  const res = await manager.post(`/v1/rest/client/${clientId}/journey`, {
    cohort_id: cohortId,
    name: 'Quayside journey',
    stages: [
      { name: 'Unaware', content_ids: [content] },
      { name: 'Aware', rules: [{ kind: 'impressions_gte', value: 3 }] },
      { name: 'Opportunity', rules: [{ kind: 'opportunity_created' }] },
      { name: 'Customer', rules: [{ kind: 'crm_stage_reached', crm_stage_id: wonStageId }] },
    ],
  });
  expect(res.statusCode, res.body).toBe(201);
  journey = res.json() as Journey;
}, 120_000);
afterAll(() => app.close());

describe('incremental journey evaluation', () => {
  it('the first run reads every account; a run after it that nothing changed for reads none', async () => {
    expect(await run()).toMatchObject({ full: 1, entered: 3, evaluated: 3, moved: 0 });
    expect(await run()).toMatchObject({ full: 0, entered: 0, evaluated: 0, moved: 0, aligned: 0 });
  });

  it("a member's impressions list its account: the run reads that one account and moves it", async () => {
    const [a, b] = targetsOf[account.alpha!]!;
    await app.db.update(targets).set({ impressions: 2 }).where(eq(targets.id, a!));
    // One short (2 of 3): read, not moved; read once even with two listings.
    await app.db.update(targets).set({ clicks: 1 }).where(eq(targets.id, b!));
    expect(await run()).toMatchObject({ full: 0, evaluated: 1, moved: 0 });
    await app.db.update(targets).set({ impressions: 1 }).where(eq(targets.id, b!));
    expect(await run()).toMatchObject({ full: 0, evaluated: 1, moved: 1, aligned: 2 });
    expect(await stageOf(account.alpha!)).toBe('Aware');
    // The job's own writes (the members' cadence day) list nothing.
    expect(await run()).toMatchObject({ evaluated: 0, moved: 0 });
    const days = await app.db
      .select({ day: targets.dayNumber })
      .from(targets)
      .where(inArray(targets.id, [a!, b!]));
    expect(days.map((d) => d.day)).toEqual([2, 2]);
  });

  it('an opportunity and then its stage history list the company', async () => {
    const [opp] = await app.db
      .insert(opportunities)
      .values({
        clientId,
        integrationId,
        externalId: randomUUID(),
        name: 'Beta rollout',
        accountName: 'Quayside Beta',
        amountCents: 50_000,
        companyId: account.beta!,
        stage: 'Prospecting',
        crmCreatedAt: new Date(),
      })
      .returning({ id: opportunities.id });
    expect(await run()).toMatchObject({ full: 0, evaluated: 1, moved: 1 });
    expect(await stageOf(account.beta!)).toBe('Opportunity');
    await app.db.insert(opportunityStageHistory).values({
      clientId,
      opportunityId: opp!.id,
      externalId: randomUUID(),
      toStageId: wonStageId,
      toStage: 'Won',
      changedAt: new Date(),
    });
    expect(await run()).toMatchObject({ full: 0, evaluated: 1, moved: 1 });
    expect(await stageOf(account.beta!)).toBe('Customer');
    // An opportunity of a company outside the cohort lists nothing.
    const outside = await company('Elsewhere Inc');
    await app.db.insert(opportunities).values({
      clientId,
      integrationId,
      externalId: randomUUID(),
      name: 'Elsewhere deal',
      accountName: 'Elsewhere Inc',
      amountCents: 10_000,
      companyId: outside,
      stage: 'Prospecting',
    });
    const listed = await app.db
      .select()
      .from(journeyDirtyAccounts)
      .where(eq(journeyDirtyAccounts.journeyId, journey.id));
    expect(listed).toEqual([]);
  });

  it("a new member's account enters and is read; an existing account's new member is read with it", async () => {
    const delta = await company('Quayside Delta');
    const newcomers = [
      { companyId: delta, prospectId: await person(delta, 'Ennis') },
      { companyId: account.gamma!, prospectId: await person(account.gamma!, 'Ford') },
    ];
    for (const m of newcomers) {
      const [t] = await app.db
        .insert(targets)
        .values({ clientId, cadenceId, prospectId: m.prospectId, token: randomUUID().replaceAll('-', '') })
        .returning({ id: targets.id });
      await app.db.insert(cohortMembers).values({ clientId, cohortId, ...m, targetId: t!.id });
    }
    expect(await run()).toMatchObject({ full: 0, entered: 1, evaluated: 2, moved: 0 });
    expect(await stageOf(delta)).toBe('Unaware');
  });

  it('a full run comes back after its period, and after the stages change', async () => {
    const later = new Date(Date.now() + 25 * 3_600_000);
    expect(await run(later)).toMatchObject({ full: 1, evaluated: 4, moved: 0 });
    expect(await run(later)).toMatchObject({ full: 0, evaluated: 0 });
    const j = (await manager.get(`/v1/rest/client/${clientId}/journey/${journey.id}`)).json() as Journey;
    const res = await manager.put(`/v1/rest/client/${clientId}/journey/${journey.id}`, {
      name: 'Quayside journey',
      stages: j.stages.map((s) => ({
        id: s.id,
        name: s.name,
        content_ids: s.content_ids,
        // Aware now at 1 impression: accounts no write listed may now move.
        rules: s.rules.map((r) => ({
          kind: r.kind,
          value: r.kind === 'impressions_gte' ? 1 : r.value,
          crm_stage_id: r.crm_stage_id,
        })),
        match: s.match,
      })),
    });
    expect(res.statusCode, res.body).toBe(200);
    await app.db
      .update(targets)
      .set({ impressions: 1 })
      .where(eq(targets.id, targetsOf[account.gamma!]![0]!));
    // Unlisted, as if no trigger had seen it: the full run reads it anyway.
    await app.db.delete(journeyDirtyAccounts).where(eq(journeyDirtyAccounts.journeyId, journey.id));
    expect(await run(later)).toMatchObject({ full: 1, evaluated: 4, moved: 1 });
    expect(await stageOf(account.gamma!)).toBe('Aware');
  });
});
