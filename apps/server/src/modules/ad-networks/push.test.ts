import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import {
  adAudiences,
  adNetworkConnections,
  cohortMembers,
  cohorts,
  journeyAccounts,
  journeyStages,
  journeys,
} from '../../db/schema/index.ts';
import { createSecretBox } from '../../lib/crypto.ts';
import { makeClient } from '../../../test/http.ts';
import { connectMetaDirectly, makeCohort, metaTestApp } from '../../../test/ad-network-kit.ts';
import { startFakeMeta } from '../../../test/fakes/meta.ts';
import type { FakeMeta } from '../../../test/fakes/meta.ts';

/** The push job on its own (no queue): a push that dies half-way, and a token close to expiry. */
let fake: FakeMeta;
let app: FastifyInstance;

beforeAll(async () => {
  fake = await startFakeMeta();
  // Batches of 100, not Meta's 10,000 (ad-networks.test.ts pushes at the real limit): the batch edges
  // here take 120 members, not 12,000 (about 40 s of each API run at 12,000).
  app = await metaTestApp(fake, { batchLimit: 100 });
});
afterAll(() => fake.close());

async function audienceOf(clientId: string, connectionId: string, cohortId: string) {
  const [a] = await app.db
    .insert(adAudiences)
    .values({
      clientId,
      connectionId,
      sourceKind: 'cohort',
      cohortId,
      name: 'Push test',
      adAccountId: 'act_1001',
    })
    .returning();
  return a!;
}
const read = async (id: string) =>
  (await app.db.select().from(adAudiences).where(eq(adAudiences.id, id)))[0]!;

describe('the audience push', () => {
  it('a push that stops after its first batch finishes on the next run with every member sent once', async () => {
    const clientId = await makeClient(app);
    const connection = await connectMetaDirectly(app, clientId, {
      accessToken: fake.mintToken(60 * 24 * 3600),
      expiresAt: new Date(Date.now() + 60 * 24 * 3600_000).toISOString(),
    });
    const { cohortId } = await makeCohort(app, clientId, 'A hundred and twenty', 120);
    const audience = await audienceOf(clientId, connection.id, cohortId);
    // The first batch of 100 is stored; every try of the second fails (Meta down), so the run stops.
    let calls = 0;
    const before = fake.requests.length;
    fake.failNext(0);
    const original = fake.requests.push.bind(fake.requests);
    fake.requests.push = (...items) => {
      if (items.some((r) => r.path.endsWith('/users')) && ++calls === 2) fake.failNext(7);
      return original(...items);
    };
    await expect(app.adNetworks.push(audience.id)).rejects.toThrow(/Meta answered 503/);
    fake.requests.push = original;
    expect((await read(audience.id)).state).toBe('failed');
    const remote = fake.audiences.get((await read(audience.id)).networkAudienceId!)!;
    expect(remote.members.size).toBe(100);

    await app.adNetworks.push(audience.id);
    const done = await read(audience.id);
    expect(done).toMatchObject({ state: 'ready', memberCount: 120, matchedLower: 120 });
    expect(remote.members.size).toBe(120);
    expect([...remote.members].every((h) => fake.addCounts.get(h) === 1)).toBe(true);
    // One audience at Meta, however many runs.
    expect(fake.requests.slice(before).filter((r) => r.path.endsWith('/customaudiences'))).toHaveLength(1);
  }, 120_000);

  it('queues a push of audiences not pushed for longer than asked, on active connections only', async () => {
    const clientId = await makeClient(app);
    const connection = await connectMetaDirectly(app, clientId, {
      accessToken: fake.mintToken(3600),
      expiresAt: new Date(Date.now() + 60 * 24 * 3600_000).toISOString(),
    });
    const { cohortId } = await makeCohort(app, clientId, 'Stale', 3, 400_000);
    const stale = await audienceOf(clientId, connection.id, cohortId);
    await app.db
      .update(adAudiences)
      .set({ state: 'ready', lastPushedAt: new Date(Date.now() - 7 * 3600_000) })
      .where(eq(adAudiences.id, stale.id));
    const paused = await makeCohort(app, clientId, 'Paused', 3, 410_000);
    await app.db.update(cohorts).set({ status: 'paused' }).where(eq(cohorts.id, paused.cohortId));
    const resting = await audienceOf(clientId, connection.id, paused.cohortId);
    await app.db
      .update(adAudiences)
      .set({ state: 'ready', lastPushedAt: new Date(Date.now() - 7 * 3600_000) })
      .where(eq(adAudiences.id, resting.id));
    expect(await app.adNetworks.requestDue(6 * 3600_000)).toBeGreaterThanOrEqual(1);
    expect((await read(stale.id)).state).toBe('queued');
    expect((await read(resting.id)).state).toBe('ready');
    expect(await app.adNetworks.requestDue(6 * 3600_000)).toBe(0);
  });

  it('a cadence becomes the audience of its active prospects, a journey stage of its accounts’ members', async () => {
    const clientId = await makeClient(app);
    const connection = await connectMetaDirectly(app, clientId, {
      accessToken: fake.mintToken(60 * 24 * 3600),
      expiresAt: new Date(Date.now() + 60 * 24 * 3600_000).toISOString(),
    });
    const cohort = await makeCohort(app, clientId, 'Sources', 240, 500_000);
    const [byCadence] = await app.db
      .insert(adAudiences)
      .values({
        clientId,
        connectionId: connection.id,
        sourceKind: 'cadence',
        cadenceId: cohort.cadenceId,
        name: 'Cadence',
      })
      .returning();
    await app.adNetworks.push(byCadence!.id);
    expect(await read(byCadence!.id)).toMatchObject({ state: 'ready', memberCount: 240 });

    // 150 of the 240 (one-person accounts: the account is the prospect) stand in stage 2.
    const [journey] = await app.db
      .insert(journeys)
      .values({ clientId, cohortId: cohort.cohortId, name: 'J' })
      .returning();
    const [one, two] = await app.db
      .insert(journeyStages)
      .values([
        { clientId, journeyId: journey!.id, position: 1, name: 'Aware' },
        { clientId, journeyId: journey!.id, position: 2, name: 'Engaged' },
      ])
      .returning();
    const people = await app.db
      .select({ prospectId: cohortMembers.prospectId })
      .from(cohortMembers)
      .where(eq(cohortMembers.cohortId, cohort.cohortId));
    await app.db.insert(journeyAccounts).values(
      people.map((p, i) => ({
        journeyId: journey!.id,
        accountId: p.prospectId,
        clientId,
        stageId: i < 150 ? two!.id : one!.id,
      })),
    );
    const [byStage] = await app.db
      .insert(adAudiences)
      .values({
        clientId,
        connectionId: connection.id,
        sourceKind: 'journey_stage',
        journeyStageId: two!.id,
        name: 'Engaged',
      })
      .returning();
    await app.adNetworks.push(byStage!.id);
    expect(await read(byStage!.id)).toMatchObject({ state: 'ready', memberCount: 150 });
  });

  it('exchanges a token a week or less from expiry before pushing, and stores the new one sealed', async () => {
    const clientId = await makeClient(app);
    const old = fake.mintToken(3600);
    const connection = await connectMetaDirectly(app, clientId, {
      accessToken: old,
      expiresAt: new Date(Date.now() + 3600_000).toISOString(),
    });
    const { cohortId } = await makeCohort(app, clientId, 'Renewed', 150, 200_000);
    const audience = await audienceOf(clientId, connection.id, cohortId);
    await app.adNetworks.push(audience.id);
    expect((await read(audience.id)).state).toBe('ready');
    const [row] = await app.db
      .select()
      .from(adNetworkConnections)
      .where(eq(adNetworkConnections.id, connection.id));
    expect(row!.credentialsEnc).not.toContain(old);
    const creds = JSON.parse(createSecretBox(app.config.appSecret).decrypt(row!.credentialsEnc)) as {
      accessToken: string;
      expiresAt: string;
    };
    expect(creds.accessToken).not.toBe(old);
    expect(Date.parse(creds.expiresAt) - Date.now()).toBeGreaterThan(59 * 24 * 3600_000);
  });

  it('a token that expired makes the connection inactive with the reason, and no member is sent', async () => {
    const clientId = await makeClient(app);
    const token = fake.mintToken(3600);
    const connection = await connectMetaDirectly(app, clientId, {
      accessToken: token,
      expiresAt: new Date(Date.now() + 3600_000).toISOString(),
    });
    const { cohortId } = await makeCohort(app, clientId, 'Expired', 150, 300_000);
    const audience = await audienceOf(clientId, connection.id, cohortId);
    fake.expireAll();
    const before = fake.requests.length;
    await app.adNetworks.push(audience.id);
    expect((await read(audience.id)).state).toBe('failed');
    const [row] = await app.db
      .select()
      .from(adNetworkConnections)
      .where(eq(adNetworkConnections.id, connection.id));
    expect(row).toMatchObject({ isActive: false });
    expect(row!.inactiveReason).toMatch(/expired\. Connect Meta again/);
    expect(fake.requests.slice(before).filter((r) => r.path.endsWith('/users'))).toEqual([]);
  });
});
