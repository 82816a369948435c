import { and, count, eq, isNotNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { companies, integrations, targets } from '../../db/schema/index.ts';
import { createSecretBox } from '../../lib/crypto.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeClient, signedIn } from '../../../test/http.ts';
import { startFakeSalesloft } from '../../../test/fakes/salesloft.ts';
import type { FakeSalesloft, FakeSalesloftSeed } from '../../../test/fakes/salesloft.ts';
import { MEMBERSHIPS_PER_TRANSACTION } from './sync.ts';
import { oauthCredentialsFrom } from './vendor-http.ts';

/**
 * A Salesloft sync larger than one transaction's worth of memberships, run directly (no queue) on
 * the real app against the fake on loopback (ARCHITECTURE.md §7: "paginated, incremental
 * (updated-since cursor), idempotent upserts keyed by (integration, external id)").
 */
const MEMBERSHIPS = MEMBERSHIPS_PER_TRANSACTION * 2;
const ACCOUNTS = 30;

function team(): FakeSalesloftSeed {
  const days = [1, 3, 5];
  return {
    users: [
      { id: 1, first_name: 'Ada', last_name: 'Admin', email: 'ada@bulk.example', team_admin: true },
      { id: 2, first_name: 'Rob', last_name: 'Rep', email: 'rob@bulk.example' },
    ],
    accounts: Array.from({ length: ACCOUNTS }, (_, i) => ({ id: i + 1, name: `Company ${i + 1}` })),
    people: Array.from({ length: MEMBERSHIPS }, (_, i) => ({
      id: i + 1,
      first_name: `P${i}`,
      last_name: 'Bulk',
      email_address: `p${i}@bulk.example`,
      account_id: (i % ACCOUNTS) + 1,
    })),
    cadences: [1, 2].map((id) => ({
      id,
      name: `Cadence ${id}`,
      owner_id: id,
      steps: days.map((day, s) => ({ id: id * 10 + s, day })),
    })),
    memberships: Array.from({ length: MEMBERSHIPS }, (_, i) => ({
      id: i + 1,
      cadence_id: (i % 2) + 1,
      person_id: i + 1,
      user_id: (i % 2) + 1,
      day: days[i % days.length]!,
    })),
  };
}

let app: FastifyInstance;
let salesloft: FakeSalesloft;
let clientId: string;
let integrationId: number;

beforeAll(async () => {
  salesloft = await startFakeSalesloft({ seed: team() });
  app = await createTestApp({
    env: {
      SALESLOFT_CLIENT_ID: salesloft.clientId,
      SALESLOFT_CLIENT_SECRET: salesloft.clientSecret,
      SALESLOFT_API_URL: salesloft.apiUrl,
      SALESLOFT_AUTH_URL: salesloft.authUrl,
    },
    // No retries: an injected 500 ends the run where it happens.
    adapters: { retry: { retries: 0, sleep: async () => {} } },
  });
  clientId = await makeClient(app, 'Bulk');
  const sealed = createSecretBox(app.config.appSecret).encrypt(
    JSON.stringify(oauthCredentialsFrom(salesloft.grantTokens())),
  );
  const [row] = await app.db
    .insert(integrations)
    .values({ clientId, source: 'salesloft', credentialsEnc: sealed, accountName: 'Bulk' })
    .returning({ id: integrations.id });
  integrationId = row!.id;
});
afterAll(async () => {
  await salesloft?.close();
});

const integration = async () =>
  (await app.db.select().from(integrations).where(eq(integrations.id, integrationId)))[0]!;
const targetCount = async () =>
  (await app.db.select({ n: count() }).from(targets).where(eq(targets.clientId, clientId)))[0]!.n;

describe(`a sync of ${MEMBERSHIPS} memberships (several transactions of ${MEMBERSHIPS_PER_TRANSACTION})`, () => {
  it('a failure midway keeps the batches stored with their cursor; the next run reads on from it and lands every membership once', async () => {
    // Fail the memberships walk once it is well past the first stored batch.
    const failAfter = Math.ceil(MEMBERSHIPS_PER_TRANSACTION / 100) + 3;
    let armed = true;
    const watch = setInterval(() => {
      if (armed && salesloft.apiRequests('cadence_memberships').length >= failAfter) {
        armed = false;
        salesloft.failNext(1, 500);
      }
    }, 1);
    try {
      await expect(app.integrationSync.run({ integrationId })).rejects.toThrow(/Salesloft answered 500/);
    } finally {
      clearInterval(watch);
    }
    expect(armed).toBe(false);
    const failed = await integration();
    expect(failed.lastError).toMatch(/will be retried/);
    const stored = await targetCount();
    expect(stored).toBeGreaterThanOrEqual(MEMBERSHIPS_PER_TRANSACTION);
    expect(stored).toBeLessThan(MEMBERSHIPS);
    // Whole batches with their cursor: the memberships stored are exactly those up to the cursor
    // (seeded in id order, so 1…stored), and the cursor is the last one's updated_at.
    const ids = (
      await app.db.select({ id: targets.externalId }).from(targets).where(eq(targets.clientId, clientId))
    ).map((t) => Number(t.id));
    expect(Math.min(...ids)).toBe(1);
    expect(Math.max(...ids)).toBe(stored);
    const cursor = failed.syncCursor.memberships;
    const last = await fetch(`${salesloft.apiUrl}/cadence_memberships/${stored}.json`, {
      headers: { authorization: `Bearer ${salesloft.grantTokens().access_token}` },
    });
    expect(cursor).toBe(((await last.json()) as { data: { updated_at: string } }).data.updated_at);

    salesloft.clearRequests();
    await app.integrationSync.run({ integrationId });
    const done = await integration();
    expect(done.lastError).toBeNull();
    expect(done.syncProgress).toEqual({ phase: 'done', done: 1, total: 1 });
    // Read on from the stored cursor, not from the start.
    const first = salesloft.apiRequests('cadence_memberships')[0]!;
    expect(first.query.get('updated_at[gt]')).toBe(cursor);
    expect(await targetCount()).toBe(MEMBERSHIPS);
    const withMembership = await app.db
      .select({ n: count() })
      .from(targets)
      .where(and(eq(targets.clientId, clientId), isNotNull(targets.externalId)));
    expect(withMembership[0]!.n).toBe(MEMBERSHIPS);
  });

  it('each account is read once per sync, however many people share it', async () => {
    // A full re-read (cursor cleared) so every person and account is asked for again.
    await app.db.update(integrations).set({ syncCursor: {} }).where(eq(integrations.id, integrationId));
    salesloft.clearRequests();
    await app.integrationSync.run({ integrationId });
    // One people lookup per page of memberships (100 a page)…
    expect(salesloft.apiRequests('people').length).toBeGreaterThanOrEqual(MEMBERSHIPS / 100);
    // …but all 30 accounts come with the first page's people: one request, never again.
    expect(salesloft.apiRequests('accounts').length).toBe(1);
    const stored = await app.db.select().from(companies).where(eq(companies.clientId, clientId));
    expect(stored.map((c) => c.name).sort()).toEqual(
      Array.from({ length: ACCOUNTS }, (_, i) => `Company ${i + 1}`).sort(),
    );
    expect(await targetCount()).toBe(MEMBERSHIPS);
    expect((await integration()).syncProgress).toEqual({ phase: 'done', done: 1, total: 1 });
  });
});

describe('a disconnect while a sync runs', () => {
  it('keeps the disconnect: inactive, no credentials, its message, not syncing, whatever the sync does after it', async () => {
    const { browser: owner } = await signedIn(app, { [clientId]: 'purple_owner' });
    await app.db.update(integrations).set({ syncCursor: {} }).where(eq(integrations.id, integrationId));
    salesloft.clearRequests();
    // The owner disconnects (the real route) once the sync is well into the memberships.
    let disconnected: Promise<number> | undefined;
    const watch = setInterval(() => {
      if (!disconnected && salesloft.apiRequests('cadence_memberships').length >= 3)
        disconnected = owner
          .request({ method: 'DELETE', url: `/v1/integration/sequence/salesloft/client/${clientId}` })
          .then((res) => res.statusCode);
    }, 1);
    try {
      // The sync reads on with what it had; it may end or fail, but not over the disconnect.
      await app.integrationSync.run({ integrationId }).catch(() => undefined);
    } finally {
      clearInterval(watch);
    }
    expect(await disconnected).toBe(204);
    const after = await integration();
    expect(after).toMatchObject({
      isActive: false,
      credentialsEnc: null,
      isSyncing: false,
      syncProgress: null,
      lastError: 'Disconnected. Connect again to resume syncing.',
    });
  });
});
