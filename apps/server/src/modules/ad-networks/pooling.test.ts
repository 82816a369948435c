import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import {
  adAudiences,
  cadences,
  cohortMembers,
  journeyAccounts,
  journeyStages,
  journeys,
  prospects,
  salesReps,
  targets,
} from '../../db/schema/index.ts';
import { makeClient, signedIn } from '../../../test/http.ts';
import type { Browser } from '../../../test/http.ts';
import { connectMetaDirectly, makeCohort, metaTestApp } from '../../../test/ad-network-kit.ts';
import { startFakeMeta } from '../../../test/fakes/meta.ts';
import type { FakeMeta } from '../../../test/fakes/meta.ts';
import { hashEmail } from './hashing.ts';

/**
 * Issue 39: "an audience under the minimum is pooled (stage with its cohort, cadence with its rep's
 * other cadences) or held with a clear reason" (decision 0034). Meta's minimum is 100.
 */
let fake: FakeMeta;
let app: FastifyInstance;
let mine: string;
let foreign: string;
let owner: Browser;
let sdr: Browser;
let stranger: Browser;

beforeAll(async () => {
  fake = await startFakeMeta();
  app = await metaTestApp(fake);
  mine = await makeClient(app, 'Mine');
  foreign = await makeClient(app, 'Foreign');
  owner = (await signedIn(app, { [mine]: 'purple_owner' })).browser;
  sdr = (await signedIn(app, { [mine]: 'yellow_sdr' })).browser;
  stranger = (await signedIn(app, { [foreign]: 'purple_owner' })).browser;
  await connectMetaDirectly(app, mine, {
    accessToken: fake.mintToken(60 * 24 * 3600),
    expiresAt: new Date(Date.now() + 60 * 24 * 3600_000).toISOString(),
  });
});
afterAll(() => fake.close());

const read = async (id: string) =>
  (await app.db.select().from(adAudiences).where(eq(adAudiences.id, id)))[0]!;

/** A cohort of `size` with a journey whose stage "Engaged" holds the first `inStage` members. */
async function stageOf(name: string, size: number, inStage: number, from: number) {
  const cohort = await makeCohort(app, mine, name, size, from);
  const [journey] = await app.db
    .insert(journeys)
    .values({ clientId: mine, cohortId: cohort.cohortId, name })
    .returning();
  const [aware, engaged] = await app.db
    .insert(journeyStages)
    .values([
      { clientId: mine, journeyId: journey!.id, position: 1, name: 'Aware' },
      { clientId: mine, journeyId: journey!.id, position: 2, name: 'Engaged' },
    ])
    .returning();
  const people = await app.db
    .select({ prospectId: cohortMembers.prospectId, email: prospects.email })
    .from(cohortMembers)
    .innerJoin(prospects, eq(prospects.id, cohortMembers.prospectId))
    .where(eq(cohortMembers.cohortId, cohort.cohortId))
    .orderBy(prospects.externalId);
  await app.db.insert(journeyAccounts).values(
    people.map((p, i) => ({
      journeyId: journey!.id,
      accountId: p.prospectId,
      clientId: mine,
      stageId: i < inStage ? engaged!.id : aware!.id,
    })),
  );
  const hashes = new Set(people.map((p) => hashEmail(p.email)!));
  return { ...cohort, journeyId: journey!.id, stageId: engaged!.id, awareId: aware!.id, people, hashes };
}

const networkMembers = async (audienceId: string) =>
  fake.audiences.get((await read(audienceId)).networkAudienceId!)!.members;

describe('a journey stage under the minimum', () => {
  it('before launch: the stage’s count beside Meta’s minimum, with its cohort proposed as the pool', async () => {
    const s = await stageOf('Preview', 240, 40, 700_000);
    const res = await sdr.get(
      `/v1/ad-networks/audiences/preview?source_kind=journey_stage&source_id=${s.stageId}`,
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual([
      expect.objectContaining({
        network: 'meta',
        minimum_audience: 100,
        count: 40,
        pool: { kind: 'cohort', name: 'cohort “Preview”', count: 240 },
        proposal: 'pool',
      }),
    ]);
    expect(res.json()[0].explanation).toMatch(
      /stage “Engaged” has 40 people; Meta needs 100\. Pooled with cohort “Preview” \(240 people\)/,
    );
  });

  it('pooled with its cohort: the cohort’s hashes are pushed; grown past the minimum it stops pooling and only the difference is sent', async () => {
    const s = await stageOf('Pooled', 240, 40, 710_000);
    const created = await owner.post('/v1/ad-networks/audiences', {
      network: 'meta',
      source_kind: 'journey_stage',
      source_id: s.stageId,
      pool: true,
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ pool_when_small: true, pooled_with: null });
    const id = created.json<{ id: string }>().id;

    await app.adNetworks.push(id);
    const pooled = await read(id);
    expect(pooled).toMatchObject({
      state: 'ready',
      memberCount: 240,
      pooledWith: { kind: 'cohort', cohortId: s.cohortId, sourceCount: 40, poolCount: 240, minimum: 100 },
    });
    expect(pooled.poolNote).toBe(
      'Pooled with cohort “Pooled” (240 people) because stage “Engaged” has 40 people; Meta needs 100.',
    );
    expect(await networkMembers(id)).toEqual(s.hashes);
    const listed = await sdr.get(
      `/v1/ad-networks/audiences?source_kind=journey_stage&source_id=${s.stageId}`,
    );
    expect(listed.json()[0]).toMatchObject({
      pooled_with: {
        kind: 'cohort',
        name: 'cohort “Pooled”',
        source_count: 40,
        pool_count: 240,
        minimum: 100,
      },
      pool_note: pooled.poolNote,
    });

    // 110 more accounts reach the stage: 150 on its own, over 100.
    await app.db
      .update(journeyAccounts)
      .set({ stageId: s.stageId })
      .where(
        and(
          eq(journeyAccounts.journeyId, s.journeyId),
          inArray(
            journeyAccounts.accountId,
            s.people.slice(40, 150).map((p) => p.prospectId),
          ),
        ),
      );
    const before = fake.requests.length;
    await app.adNetworks.push(id);
    const alone = await read(id);
    expect(alone).toMatchObject({ state: 'ready', memberCount: 150, pooledWith: null });
    expect(alone.lastPush).toMatchObject({ added: 0, removed: 90 });
    expect(alone.poolNote).toMatch(
      /^Stopped pooling with cohort “Pooled”: stage “Engaged” has 150 people now/,
    );
    const stage = new Set(s.people.slice(0, 150).map((p) => hashEmail(p.email)!));
    expect(await networkMembers(id)).toEqual(stage);
    // Only the 90 who left were sent (removed); nobody was added again, no second audience made.
    const sent = fake.requests.slice(before).filter((r) => r.path.endsWith('/users'));
    expect(sent.reduce((n, r) => n + r.members, 0)).toBe(90);
    expect(fake.requests.slice(before).filter((r) => r.path.endsWith('/customaudiences'))).toEqual([]);
  });

  it('a pool still under the minimum is held with both counts, and nothing is made at Meta', async () => {
    const s = await stageOf('Tiny', 60, 20, 720_000);
    const created = await owner.post('/v1/ad-networks/audiences', {
      network: 'meta',
      source_kind: 'journey_stage',
      source_id: s.stageId,
      pool: true,
    });
    const id = created.json<{ id: string }>().id;
    const before = fake.requests.length;
    await app.adNetworks.push(id);
    const held = await read(id);
    expect(held).toMatchObject({ state: 'held', networkAudienceId: null, pooledWith: null });
    expect(held.heldReason).toBe(
      'Held: stage “Engaged” has 20 people and even pooled with cohort “Tiny” there are only 60 people; Meta needs at least 100.',
    );
    expect(fake.requests.slice(before)).toEqual([]);
  });

  it('not pooled, it is held with the pool proposed; choosing pooling later pools it on the next push', async () => {
    const s = await stageOf('Proposed', 180, 30, 730_000);
    const created = await owner.post('/v1/ad-networks/audiences', {
      network: 'meta',
      source_kind: 'journey_stage',
      source_id: s.stageId,
    });
    const id = created.json<{ id: string }>().id;
    await app.adNetworks.push(id);
    expect((await read(id)).heldReason).toMatch(
      /30 members have an e-mail.*Pool it with cohort “Proposed” \(180 people\) to run now\./,
    );
    const again = await owner.post('/v1/ad-networks/audiences', {
      network: 'meta',
      source_kind: 'journey_stage',
      source_id: s.stageId,
      pool: true,
    });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ id, pool_when_small: true });
    await app.adNetworks.push(id);
    expect(await read(id)).toMatchObject({
      state: 'ready',
      memberCount: 180,
      pooledWith: { poolCount: 180 },
    });
  });
});

describe('a cadence under the minimum', () => {
  it('is pooled with its rep’s other cadences: the union of their active prospects is pushed', async () => {
    const { integrationId } = await makeCohort(app, mine, 'Kit', 1, 740_000);
    const [rep] = await app.db
      .insert(salesReps)
      .values({ clientId: mine, integrationId, externalId: 'rep-dana', firstName: 'Dana', lastName: 'Rep' })
      .returning();
    const made = await app.db
      .insert(cadences)
      .values(
        [1, 2, 3].map((k) => ({
          clientId: mine,
          integrationId,
          externalId: `dana-${k}`,
          name: `Dana ${k}`,
          ownerId: rep!.id,
        })),
      )
      .returning();
    const all = new Set<string>();
    for (const [k, c] of made.entries()) {
      const people = await app.db
        .insert(prospects)
        .values(
          Array.from({ length: 50 }, (_, i) => ({
            clientId: mine,
            integrationId,
            externalId: `dana-${k}-${i}`,
            email: `dana${k}.${i}@example.com`,
          })),
        )
        .returning();
      await app.db
        .insert(targets)
        .values(people.map((p) => ({ clientId: mine, cadenceId: c.id, prospectId: p.id })));
      for (const p of people) all.add(hashEmail(p.email)!);
    }
    const preview = await owner.get(
      `/v1/ad-networks/audiences/preview?source_kind=cadence&source_id=${made[0]!.id}`,
    );
    expect(preview.json()[0]).toMatchObject({
      count: 50,
      pool: { kind: 'rep_cadences', name: 'Dana Rep’s cadences', count: 150 },
      proposal: 'pool',
    });
    const created = await owner.post('/v1/ad-networks/audiences', {
      network: 'meta',
      source_kind: 'cadence',
      source_id: made[0]!.id,
      pool: true,
    });
    const id = created.json<{ id: string }>().id;
    await app.adNetworks.push(id);
    expect(await read(id)).toMatchObject({
      state: 'ready',
      memberCount: 150,
      pooledWith: {
        kind: 'rep_cadences',
        cadenceIds: made.map((c) => c.id),
        sourceCount: 50,
        poolCount: 150,
      },
    });
    expect(await networkMembers(id)).toEqual(all);
  });
});

describe('the routes', () => {
  it('bad input names the field', async () => {
    const s = await stageOf('Bad', 10, 5, 750_000);
    const badPool = await owner.post('/v1/ad-networks/audiences', {
      network: 'meta',
      source_kind: 'journey_stage',
      source_id: s.stageId,
      pool: 'yes',
    });
    expect(badPool.statusCode).toBe(422);
    expect(badPool.body).toContain('body.pool');
    const badKind = await owner.get(
      `/v1/ad-networks/audiences/preview?source_kind=team&source_id=${s.stageId}`,
    );
    expect(badKind.statusCode).toBe(422);
    expect(badKind.body).toContain('source_kind');
    const badId = await owner.get(
      '/v1/ad-networks/audiences/preview?source_kind=journey_stage&source_id=abc',
    );
    expect(badId.statusCode).toBe(422);
    expect(badId.body).toContain('querystring.source_id');
    const missing = await owner.get('/v1/ad-networks/audiences/preview?source_kind=cohort');
    expect(missing.statusCode).toBe(422);
    expect(missing.body).toContain('source_id');
  });

  it('an SDR may look but not choose pooling (cohort.write)', async () => {
    const s = await stageOf('Sdr', 10, 5, 760_000);
    const res = await sdr.post('/v1/ad-networks/audiences', {
      network: 'meta',
      source_kind: 'journey_stage',
      source_id: s.stageId,
      pool: true,
    });
    expect(res.statusCode).toBe(403);
    expect(await app.db.select().from(adAudiences).where(eq(adAudiences.journeyStageId, s.stageId))).toEqual(
      [],
    );
  });

  it('another client’s stage is not found, neither previewed nor pooled', async () => {
    const s = await stageOf('Theirs', 10, 5, 770_000);
    const preview = await stranger.get(
      `/v1/ad-networks/audiences/preview?source_kind=journey_stage&source_id=${s.stageId}`,
    );
    expect(preview.statusCode).toBe(404);
    const run = await stranger.post('/v1/ad-networks/audiences', {
      network: 'meta',
      source_kind: 'journey_stage',
      source_id: s.stageId,
      pool: true,
    });
    expect(run.statusCode).toBe(404);
  });
});
