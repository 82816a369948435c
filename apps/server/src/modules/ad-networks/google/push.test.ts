import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { adAudiences, adNetworkConnections, cohortMembers, prospects } from '../../../db/schema/index.ts';
import { createSecretBox } from '../../../lib/crypto.ts';
import { createTestApp } from '../../../../test/helpers.ts';
import { makeClient } from '../../../../test/http.ts';
import { addMembers, makeCohort } from '../../../../test/ad-network-kit.ts';
import { startFakeGoogleAds } from '../../../../test/fakes/google-ads.ts';
import type { FakeGoogleAds } from '../../../../test/fakes/google-ads.ts';

/** The audience push job (no queue) against the Google fake: the adapter cases, end to end. */
let fake: FakeGoogleAds;
let app: FastifyInstance;
/**
 * The same, sending 100 members per request instead of Google's 10,000: the batch edges (a throttle,
 * a crash, a token's expiry midway) with cohorts of 120, not 12,000 (about 120 s of each API run).
 * The first test pushes at the real limit.
 */
let small: FastifyInstance;
const waits: number[] = [];

beforeAll(async () => {
  fake = await startFakeGoogleAds();
  const retry = { sleep: async (ms: number) => void waits.push(ms), baseDelayMs: 1 };
  app = await createTestApp({ workers: false, env: fake.env(), adapters: { retry } });
  small = await createTestApp({ workers: false, env: fake.env(), adapters: { retry, batchLimit: 100 } });
});
afterAll(() => fake.close());

/** A Google Ads connection as the OAuth callback and the account choice leave it. */
async function connectGoogle(clientId: string, on = app) {
  const { accessToken, refreshToken } = fake.grant();
  const creds = {
    kind: 'oauth',
    accessToken,
    refreshToken,
    expiresAt: new Date(Date.now() + 3599_000).toISOString(),
  };
  const [row] = await on.db
    .insert(adNetworkConnections)
    .values({
      clientId,
      network: 'google',
      credentialsEnc: createSecretBox(on.config.appSecret).encrypt(JSON.stringify(creds)),
      accountName: 'Google Ads login with 3 accounts',
      adAccountId: '1234567890',
      adAccountName: 'Acme Search',
    })
    .returning();
  return { row: row!, accessToken, refreshToken };
}

async function audienceOf(clientId: string, connectionId: string, cohortId: string, on = app) {
  const [a] = await on.db
    .insert(adAudiences)
    .values({ clientId, connectionId, sourceKind: 'cohort', cohortId, name: 'Google push' })
    .returning();
  return a!;
}
const read = async (id: string, on = app) =>
  (await on.db.select().from(adAudiences).where(eq(adAudiences.id, id)))[0]!;
const memberCalls = (from: number) =>
  fake.requests.slice(from).filter((r) => r.path.startsWith('/v1/audienceMembers:'));

describe('the audience push to Google Ads', () => {
  it('pushes 10,000 members in one request, then only the difference when the cohort changes', async () => {
    const clientId = await makeClient(app);
    const { row } = await connectGoogle(clientId);
    const cohort = await makeCohort(app, clientId, 'Ten thousand', 10_000);
    const audience = await audienceOf(clientId, row.id, cohort.cohortId);
    let before = fake.requests.length;
    await app.adNetworks.push(audience.id);
    expect(memberCalls(before).map((r) => [r.path, r.members])).toEqual([
      ['/v1/audienceMembers:ingest', 10_000],
    ]);
    let done = await read(audience.id);
    expect(done).toMatchObject({ state: 'ready', memberCount: 10_000, matchedLower: 10_000 });
    expect(done.networkAudienceId).toMatch(
      /^accountTypes\/GOOGLE_ADS\/accounts\/1234567890\/userLists\/\d+$/,
    );

    // 100 leave the cohort, 50 join: the next push sends those 150 and nothing else.
    const leaving = await app.db
      .select({ prospectId: cohortMembers.prospectId })
      .from(cohortMembers)
      .where(eq(cohortMembers.cohortId, cohort.cohortId))
      .limit(100);
    await app.db.delete(cohortMembers).where(
      and(
        eq(cohortMembers.cohortId, cohort.cohortId),
        inArray(
          cohortMembers.prospectId,
          leaving.map((l) => l.prospectId),
        ),
      ),
    );
    await addMembers(app, clientId, cohort.cohortId, cohort.cadenceId, cohort.integrationId, 50, 20_000);
    before = fake.requests.length;
    await app.adNetworks.push(audience.id);
    expect(memberCalls(before).map((r) => [r.path, r.members])).toEqual([
      ['/v1/audienceMembers:ingest', 50],
      ['/v1/audienceMembers:remove', 100],
    ]);
    done = await read(audience.id);
    expect(done).toMatchObject({
      state: 'ready',
      memberCount: 9_950,
      lastPush: { added: 50, removed: 100, requests: 2 },
    });
    expect(fake.lists.get(done.networkAudienceId!)?.members.size).toBe(9_950);
    // One user list at Google, however many runs.
    expect(
      fake.requests.filter((r) => r.path.endsWith('/userLists') && r.method === 'POST').length,
    ).toBeGreaterThan(0);
  }, 180_000);

  it('Gmail addresses are sent as Google normalises them (dots and plus tags gone)', async () => {
    const clientId = await makeClient(app);
    const { row } = await connectGoogle(clientId);
    const cohort = await makeCohort(app, clientId, 'Gmail', 120, 30_000);
    await app.db
      .update(prospects)
      .set({ email: 'Jo.Ann+News@gmail.com' })
      .where(and(eq(prospects.clientId, clientId), eq(prospects.externalId, 'p30000')));
    const audience = await audienceOf(clientId, row.id, cohort.cohortId);
    await app.adNetworks.push(audience.id);
    const list = fake.lists.get((await read(audience.id)).networkAudienceId!)!;
    const { createHash } = await import('node:crypto');
    expect(list.members.has(createHash('sha256').update('joann@gmail.com').digest('hex'))).toBe(true);
  }, 180_000);

  it('a rate-limit reply mid-job is waited out for the RetryInfo delay and the job finishes', async () => {
    const clientId = await makeClient(small);
    const { row } = await connectGoogle(clientId, small);
    const cohort = await makeCohort(small, clientId, 'Throttled', 120, 40_000);
    const audience = await audienceOf(clientId, row.id, cohort.cohortId, small);
    waits.length = 0;
    fake.throttleNext(1, 40, 1);
    const before = fake.requests.length;
    await small.adNetworks.push(audience.id);
    expect(waits).toContain(40_000);
    // Two batches acknowledged, the throttled one sent again once: every member once.
    expect(memberCalls(before).map((r) => r.members)).toEqual([100, 0, 20]);
    expect(await read(audience.id, small)).toMatchObject({ state: 'ready', memberCount: 120 });
  }, 180_000);

  it('a push that dies after its first batch finishes on the next run with every member sent once', async () => {
    const clientId = await makeClient(small);
    const { row } = await connectGoogle(clientId, small);
    const cohort = await makeCohort(small, clientId, 'Crash', 120, 70_000);
    const audience = await audienceOf(clientId, row.id, cohort.cohortId, small);
    fake.failNext(7, 1);
    await expect(small.adNetworks.push(audience.id)).rejects.toThrow(/Google Ads answered 503/);
    const failed = await read(audience.id, small);
    expect(failed.state).toBe('failed');
    const list = fake.lists.get(failed.networkAudienceId!)!;
    expect(list.members.size).toBe(100);
    const before = fake.requests.length;
    await small.adNetworks.push(audience.id);
    expect(await read(audience.id, small)).toMatchObject({ state: 'ready', memberCount: 120 });
    // Only the batch that never arrived is sent again.
    expect(memberCalls(before).map((r) => r.members)).toEqual([20]);
    expect(list.members.size).toBe(120);
    expect([...list.members].every((h) => fake.addCounts.get(h) === 1)).toBe(true);
  }, 180_000);

  it('an access token that expires mid-job is refreshed, and the new one is stored sealed', async () => {
    const clientId = await makeClient(small);
    const { row, accessToken } = await connectGoogle(clientId, small);
    const cohort = await makeCohort(small, clientId, 'Refresh', 120, 90_000);
    const audience = await audienceOf(clientId, row.id, cohort.cohortId, small);
    // The job refreshes up front (an hour-long token is always "due" in the push's window); the
    // fresh token then dies after the first batch and is refreshed again on Google's 401.
    const original = fake.requests.push.bind(fake.requests);
    let calls = 0;
    fake.requests.push = (...items) => {
      const n = original(...items);
      if (items.some((r) => r.path === '/v1/audienceMembers:ingest') && ++calls === 2)
        fake.expireAccessTokens();
      return n;
    };
    try {
      await small.adNetworks.push(audience.id);
    } finally {
      fake.requests.push = original;
    }
    expect(await read(audience.id, small)).toMatchObject({ state: 'ready', memberCount: 120 });
    const [stored] = await small.db
      .select()
      .from(adNetworkConnections)
      .where(eq(adNetworkConnections.id, row.id));
    expect(stored!.credentialsEnc).not.toContain('ya29.');
    const creds = JSON.parse(createSecretBox(small.config.appSecret).decrypt(stored!.credentialsEnc)) as {
      accessToken: string;
    };
    expect(creds.accessToken).not.toBe(accessToken);
    expect(stored!.isActive).toBe(true);
  }, 180_000);

  it('a revoked grant makes the connection inactive with Google’s reason, and no member is sent', async () => {
    const clientId = await makeClient(app);
    const { row } = await connectGoogle(clientId);
    const cohort = await makeCohort(app, clientId, 'Revoked', 150, 120_000);
    const audience = await audienceOf(clientId, row.id, cohort.cohortId);
    fake.revokeAll();
    const before = fake.requests.length;
    await app.adNetworks.push(audience.id);
    expect((await read(audience.id)).state).toBe('failed');
    const [stored] = await app.db
      .select()
      .from(adNetworkConnections)
      .where(eq(adNetworkConnections.id, row.id));
    expect(stored).toMatchObject({
      isActive: false,
      inactiveReason:
        'Google refused Rally’s access: Token has been expired or revoked. Connect Google Ads again.',
    });
    expect(memberCalls(before)).toEqual([]);
  });
});
