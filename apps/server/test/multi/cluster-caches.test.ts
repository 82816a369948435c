import { count, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { webhookDeliveries } from '../../src/db/schema/index.ts';
import { creativeOf, PAGE_CACHE_MS } from '../../src/modules/creative/service.ts';
import { CLUSTER_READY, CLUSTER_REDIS_READY, startRedis } from './cluster-kit.ts';
import { createTestApp, freshDatabaseUrl } from '../helpers.ts';
import { makeClient, signedIn } from '../http.ts';

/**
 * Four connections per in-process app: this suite runs beside the PostgreSQL API run, and with the
 * default ten each, the two runs together once took PostgreSQL past its 100 connections ("too many
 * clients" in a CI-like run of 2026-12-06). These apps answer a handful of requests at a time.
 */
const POOL = { DATABASE_POOL_SIZE: '4' };

/** Two real apps (A, B) on one PostgreSQL database, with `env` (REDIS_URL…). */
async function twoInstances(env: Record<string, string> = {}): Promise<[FastifyInstance, FastifyInstance]> {
  const DATABASE_URL = (await freshDatabaseUrl())!;
  const a = await createTestApp({ env: { DATABASE_URL, ...POOL, ...env } });
  const b = await createTestApp({ env: { DATABASE_URL, ...POOL, ...env } });
  return [a, b];
}

const deliveries = async (app: FastifyInstance, clientId: string) =>
  (
    await app.db
      .select({ n: count() })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.clientId, clientId))
  )[0]!.n;

/**
 * Issue 41 item 5. Before: a webhook endpoint created on A lost the events B emitted for up to 10 s,
 * for good (B remembered "no endpoint"), and a brand change stayed stale on B for up to 30 s.
 */
async function changesSeenOnB(
  [a, b]: [FastifyInstance, FastifyInstance],
  crossMs: number,
  brandMs = crossMs,
): Promise<void> {
  // The time a "forget" takes from A's reply to B's memory (a Redis message: a millisecond or two);
  // an event in that window is as concurrent with the change as one just before it.
  const cross = (ms = crossMs) => new Promise((r) => setTimeout(r, ms));
  const clientId = await makeClient(a, 'Hooked');
  const { browser } = await signedIn(a, { [clientId]: 'purple_owner' });

  // B emits while the client has no endpoint: nothing to deliver (and B may remember that).
  await b.webhooks.emit(clientId, 'click', { n: 1 });
  expect(await deliveries(b, clientId)).toBe(0);
  const created = await browser.post(`/v1/hookly/client/${clientId}/settings`, {
    url: 'https://hooks.example.com/rally',
    events: ['click'],
  });
  expect(created.statusCode, created.body).toBe(201);
  await cross();
  // The very next event on B is delivered.
  await b.webhooks.emit(clientId, 'click', { n: 2 });
  expect(await deliveries(b, clientId)).toBe(1);

  // A brand change on A shows on B's next read.
  const brand = () => creativeOf(b).brand(clientId);
  const first = await browser.put(`/v1/rest/client/${clientId}/settings`, {
    landing_button_name: 'Book a call',
  });
  expect(first.statusCode, first.body).toBe(200);
  await cross(brandMs);
  expect((await brand()).landingButtonName).toBe('Book a call');
  const second = await browser.put(`/v1/rest/client/${clientId}/settings`, {
    landing_button_name: 'Meet us',
  });
  expect(second.statusCode, second.body).toBe(200);
  await cross(brandMs);
  expect((await brand()).landingButtonName).toBe('Meet us');
}

describe.skipIf(!CLUSTER_REDIS_READY)('two instances on one PostgreSQL and Redis', () => {
  it('a new webhook endpoint and a brand change made on A hold on B at once', async () => {
    const redis = await startRedis();
    const pair = await twoInstances({ REDIS_URL: redis.url, REDIS_PREFIX: 'caches-test:' });
    await changesSeenOnB(pair, 100);
  });
});

describe.skipIf(!CLUSTER_READY)('two instances on one PostgreSQL without Redis', () => {
  it('remember no "nothing to deliver", and a brand for PAGE_CACHE_MS at most', async () => {
    await changesSeenOnB(await twoInstances(), 0, PAGE_CACHE_MS + 50);
  });
});

/** Issue 41 item 6. Before: keys and channels were always `rally:*`, so two deployments on one Redis heard each other's feed. */
describe.skipIf(!CLUSTER_REDIS_READY)('two deployments on one Redis with REDIS_PREFIX', () => {
  it("hear only their own feed items; instances of one deployment hear each other's", async () => {
    const redis = await startRedis();
    const app = (prefix: string) =>
      createTestApp({ env: { ...POOL, REDIS_URL: redis.url, REDIS_PREFIX: prefix } });
    const [mine, mineToo, theirs] = [await app('one:'), await app('one:'), await app('two:')];
    const clientId = '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c0000aa';
    const heard = { mineToo: [] as number[], theirs: [] as number[] };
    const offs = [
      await mineToo.feedBus.subscribe(clientId, (i) => heard.mineToo.push(i.id)),
      await theirs.feedBus.subscribe(clientId, (i) => heard.theirs.push(i.id)),
    ];
    const item = { id: 42, type: 'sync', created_at: new Date().toISOString(), detail: {} };
    mine.feedBus.publish(clientId, item as never);
    for (let i = 0; i < 100 && heard.mineToo.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    // A message on a shared channel would reach both at about the same time; give it a margin.
    await new Promise((r) => setTimeout(r, 100));
    expect(heard).toEqual({ mineToo: [42], theirs: [] });
    for (const off of offs) off();
  });
});
