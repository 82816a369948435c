import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { integrations } from '../../../../db/schema/index.ts';
import type { ApiUsage } from '../../../../db/schema/index.ts';
import { createTestApp, waitFor } from '../../../../../test/helpers.ts';
import { makeClient, signedIn } from '../../../../../test/http.ts';
import { smallSubscription, startFakeMarketo } from '../../../../../test/fakes/marketo.ts';
import type { FakeMarketo } from '../../../../../test/fakes/marketo.ts';
import { centralDay, MARKETO_DAILY_QUOTA } from './usage.ts';

/**
 * Issue 40 item 1 (connection health): Rally counts the Marketo REST calls it sends per connection
 * per US Central day and stores them as the connection's API usage — two syncs the same day add
 * up, a new Central day starts again from 0, and a sync stopped by 607 stores what it sent.
 */
let app: FastifyInstance;
let fake: FakeMarketo;
let clientId: string;
let clock = Date.now();

beforeAll(async () => {
  fake = await startFakeMarketo({ seed: smallSubscription(), now: () => clock });
  app = await createTestApp({
    adapters: {
      retry: {
        baseDelayMs: 1,
        maxDelayMs: 5,
        sleep: async (ms: number) => {
          clock += ms;
        },
      },
      now: () => clock,
    },
  });
  clientId = await makeClient(app, 'Usage');
  const owner = (await signedIn(app, { [clientId]: 'purple_owner' })).browser;
  const res = await owner.post(
    `/v1/integration/crm/marketo/client/${clientId}/connection`,
    { client_id: fake.clientId, client_secret: fake.clientSecret, rest_base_url: fake.restUrl },
    { clientId },
  );
  expect(res.statusCode).toBe(200);
  await waitFor(async () => {
    const i = await connectionOf();
    return !i.isSyncing && i.lastSyncedAt ? i : null;
  }, 60_000);
});
afterAll(async () => {
  await fake?.close();
});

const connectionOf = async () =>
  (
    await app.db
      .select()
      .from(integrations)
      .where(and(eq(integrations.clientId, clientId), eq(integrations.source, 'marketo')))
  )[0]!;
const setUsage = async (u: ApiUsage | null) =>
  app.db
    .update(integrations)
    .set({ apiUsage: u })
    .where(eq(integrations.id, (await connectionOf()).id));
/** The REST calls (what the quota counts) Marketo received during `fn`. */
async function restCalls(fn: () => Promise<unknown>) {
  fake.clearRequests();
  await fn();
  return fake.requests.filter((r) => r.path.startsWith('/rest/')).length;
}
const sync = async () => app.crmSync.run({ integrationId: (await connectionOf()).id });

describe('Marketo calls used today (issue 40 item 1)', () => {
  it('the first sync after connecting stored its calls against the daily quota', async () => {
    const row = await connectionOf();
    expect(row.apiUsage).toMatchObject({ used: expect.any(Number), max: MARKETO_DAILY_QUOTA });
    expect(row.apiUsage!.used).toBeGreaterThan(0);
  });

  it('two syncs the same US Central day add up', async () => {
    await setUsage(null);
    const first = await restCalls(sync);
    expect((await connectionOf()).apiUsage).toEqual({
      used: first,
      max: MARKETO_DAILY_QUOTA,
      at: expect.any(String),
    });
    const second = await restCalls(sync);
    expect(second).toBeGreaterThan(0);
    const row = await connectionOf();
    expect(row.apiUsage).toMatchObject({ used: first + second, max: MARKETO_DAILY_QUOTA });
    expect(centralDay(Date.parse(row.apiUsage!.at))).toBe(centralDay(Date.now()));
  });

  it('a figure stored on an earlier US Central day is not carried over', async () => {
    // 24 hours ago is always another Central calendar day (its days last 23 to 25 hours).
    const yesterday = new Date(Date.now() - 24 * 3_600_000).toISOString();
    await setUsage({ used: 9_000, max: MARKETO_DAILY_QUOTA, at: yesterday });
    const calls = await restCalls(sync);
    expect((await connectionOf()).apiUsage).toMatchObject({ used: calls, max: MARKETO_DAILY_QUOTA });
  });

  it('a sync stopped by 607 stores the calls it sent, the refused one included', async () => {
    await setUsage({ used: 40, max: MARKETO_DAILY_QUOTA, at: new Date().toISOString() });
    fake.failWithDailyQuota(1);
    const calls = await restCalls(() => sync().catch(() => {}));
    expect(calls).toBe(1);
    const row = await connectionOf();
    expect(row.lastError).toMatch(/error 607/);
    expect(row.apiUsage).toMatchObject({ used: 41, max: MARKETO_DAILY_QUOTA });
    // Until the reset nothing is sent, so nothing more is counted.
    expect(await restCalls(() => sync().catch(() => {}))).toBe(0);
    expect((await connectionOf()).apiUsage).toMatchObject({ used: 41 });
  });
});
