import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { adAudiences, adNetworkConnections, cohortMembers, prospects } from '../../../db/schema/index.ts';
import { createSecretBox } from '../../../lib/crypto.ts';
import { createTestApp } from '../../../../test/helpers.ts';
import { makeClient } from '../../../../test/http.ts';
import { addMembers, connectLinkedInDirectly, makeCohort } from '../../../../test/ad-network-kit.ts';
import { startFakeLinkedIn } from '../../../../test/fakes/linkedin.ts';
import type { FakeLinkedIn } from '../../../../test/fakes/linkedin.ts';
import { hashEmail } from '../hashing.ts';

/** The push job against the LinkedIn fake (no queue): diffs, throttles, tokens dying, crashes. */
let fake: FakeLinkedIn;
let app: FastifyInstance;
/**
 * The same, sending 200 members per request instead of 5,000: a crash after the first batch with a
 * cohort of 500 (LinkedIn's minimum is 300), not 12,000 (about 75 s of each API run). The first test
 * pushes at the real limit.
 */
let small: FastifyInstance;
const waits: number[] = [];

beforeAll(async () => {
  fake = await startFakeLinkedIn({ settleMs: 0 });
  const env = {
    LINKEDIN_CLIENT_ID: fake.clientId,
    LINKEDIN_CLIENT_SECRET: fake.clientSecret,
    LINKEDIN_API_URL: fake.url,
    LINKEDIN_AUTH_URL: fake.url,
    LINKEDIN_API_VERSION: fake.version,
  };
  const retry = { sleep: async (ms: number) => void waits.push(ms), baseDelayMs: 1 };
  app = await createTestApp({ workers: false, env, adapters: { retry } });
  small = await createTestApp({ workers: false, env, adapters: { retry, batchLimit: 200 } });
});
afterAll(() => fake.close());

const read = async (id: string, on = app) =>
  (await on.db.select().from(adAudiences).where(eq(adAudiences.id, id)))[0]!;
const connectionRow = async (id: string) =>
  (await app.db.select().from(adNetworkConnections).where(eq(adNetworkConnections.id, id)))[0]!;
const usersCalls = (from: number) =>
  fake.requests
    .slice(from)
    .filter((r) => r.path.endsWith('/users'))
    .map((r) => r.members);

async function setup(name: string, n: number, from: number, on = app) {
  const clientId = await makeClient(on);
  const tokens = fake.mintTokens();
  const connection = await connectLinkedInDirectly(on, clientId, {
    ...tokens,
    expiresAt: new Date(Date.now() + 60 * 24 * 3600_000).toISOString(),
  });
  const cohort = await makeCohort(on, clientId, name, n, from);
  const [audience] = await on.db
    .insert(adAudiences)
    .values({ clientId, connectionId: connection.id, sourceKind: 'cohort', cohortId: cohort.cohortId, name })
    .returning();
  return { clientId, connection, cohort, tokens, audience: audience! };
}

describe('the audience push to LinkedIn', () => {
  it('10,000 members go in two batches of 5,000 with a token refreshed mid-job; a change sends only the difference through a 429', async () => {
    const { clientId, connection, cohort, tokens, audience } = await setup('Ten thousand', 10_000, 0);
    const before = fake.requests.length;
    // The access token dies after the first batch: the second is refused (401), refreshed, resent.
    fake.expireAfterUsersCalls(1);
    await app.adNetworks.push(audience.id);
    const done = await read(audience.id);
    expect(done).toMatchObject({ state: 'ready', memberCount: 10_000, matchedLower: 10_000 });
    expect(done.lastPush).toEqual({ added: 10_000, removed: 0, requests: 2 });
    expect(usersCalls(before)).toEqual([5_000, 5_000]);
    const segment = fake.segments.get(done.networkAudienceId!)!;
    expect(segment.account).toBe('urn:li:sponsoredAccount:5001');
    // Hashes of the normalised address only (" Person1@Example.com" → person1@example.com).
    expect(segment.members.has(hashEmail('person1@example.com')!)).toBe(true);
    const sealed = (await connectionRow(connection.id)).credentialsEnc;
    // The refreshed access token is stored sealed; the refresh token is LinkedIn's same one.
    const creds = JSON.parse(createSecretBox(app.config.appSecret).decrypt(sealed)) as typeof tokens;
    expect(creds.accessToken).not.toBe(tokens.accessToken);
    expect(creds.refreshToken).toBe(tokens.refreshToken);
    expect(sealed).not.toContain(creds.accessToken);
    expect((await connectionRow(connection.id)).isActive).toBe(true);

    // 30 leave, 20 join; LinkedIn throttles the first call of the next push.
    const gone = await app.db
      .select({ id: prospects.id })
      .from(prospects)
      .where(
        inArray(
          prospects.externalId,
          Array.from({ length: 30 }, (_, i) => `p${i}`),
        ),
      );
    await app.db.delete(cohortMembers).where(
      inArray(
        cohortMembers.prospectId,
        gone.map((g) => g.id),
      ),
    );
    await addMembers(app, clientId, cohort.cohortId, cohort.cadenceId, cohort.integrationId, 20, 50_000);
    const next = fake.requests.length;
    waits.length = 0;
    fake.throttleNext(1);
    await app.adNetworks.push(audience.id);
    const again = await read(audience.id);
    expect(again).toMatchObject({ state: 'ready', memberCount: 9_990, matchedLower: 9_990 });
    expect(again.lastPush).toEqual({ added: 20, removed: 30, requests: 2 });
    // The throttled call (refused before reading its body), then 20 ADD and 30 REMOVE.
    expect(usersCalls(next)).toEqual([0, 20, 30]);
    expect(waits).toContain(60_000);
    expect(segment.members.size).toBe(9_990);
    expect(fake.requests.slice(before).filter((r) => r.path === '/rest/dmpSegments')).toHaveLength(1);
  }, 180_000);

  it('a push that dies after its first batch finishes on the next run with every member sent once', async () => {
    const { audience } = await setup('Five hundred', 500, 100_000, small);
    // The first batch is stored; every try of the second fails (LinkedIn down), so the run stops.
    const original = fake.requests.push.bind(fake.requests);
    let calls = 0;
    fake.requests.push = (...items) => {
      if (items.some((r) => r.path.endsWith('/users')) && ++calls === 2) fake.failNext(7);
      return original(...items);
    };
    await expect(small.adNetworks.push(audience.id)).rejects.toThrow(/LinkedIn answered 503/);
    fake.requests.push = original;
    const failed = await read(audience.id, small);
    expect(failed.state).toBe('failed');
    const segment = fake.segments.get(failed.networkAudienceId!)!;
    expect(segment.members.size).toBe(200);

    const before = fake.requests.length;
    await small.adNetworks.push(audience.id);
    expect(await read(audience.id, small)).toMatchObject({
      state: 'ready',
      memberCount: 500,
      matchedLower: 500,
    });
    expect(usersCalls(before)).toEqual([200, 100]);
    expect([...segment.members].every((h) => fake.addCounts.get(h) === 1)).toBe(true);
    expect(fake.requests.slice(before).filter((r) => r.path === '/rest/dmpSegments')).toHaveLength(0);
  }, 120_000);

  it('holds an audience under LinkedIn’s 300 without creating it there', async () => {
    const { audience } = await setup('Two hundred', 200, 200_000);
    const before = fake.segments.size;
    await app.adNetworks.push(audience.id);
    const held = await read(audience.id);
    expect(held).toMatchObject({ state: 'held', networkAudienceId: null, memberCount: 200 });
    expect(held.heldReason).toMatch(/200 members .* LinkedIn shows ads only to audiences of at least 300/);
    expect(fake.segments.size).toBe(before);
  });

  it('a revoked token makes the connection inactive with LinkedIn’s reason, and no member is sent', async () => {
    const { connection, audience } = await setup('Revoked', 400, 300_000);
    fake.revokeAll();
    const before = fake.requests.length;
    await app.adNetworks.push(audience.id);
    const failed = await read(audience.id);
    expect(failed.state).toBe('failed');
    expect(failed.pushError).toMatch(/revoked by the user/);
    const row = await connectionRow(connection.id);
    expect(row.isActive).toBe(false);
    expect(row.inactiveReason).toBe(
      'LinkedIn refused Rally’s access: The token used in the request has been revoked by the user. Connect LinkedIn again.',
    );
    expect(usersCalls(before)).toEqual([]);
    // A later push does not try: it says LinkedIn is not connected.
    await app.adNetworks.push(audience.id);
    expect((await read(audience.id)).pushError).toMatch(/^LinkedIn is not connected: LinkedIn refused/);
  });
});
