import { describe, expect, it } from 'vitest';
import {
  CLUSTER_READY,
  CLUSTER_REDIS_READY,
  ClusterBrowser,
  dbOf,
  startCluster,
  startRedis,
} from './cluster-kit.ts';
import type { Cluster } from './cluster-kit.ts';
import { makeClient, makeUser, PASSWORD } from '../http.ts';

/** Calls `probe` until it answers `status`; how long that took, in ms (capped at `maxMs`). */
async function msUntil(probe: () => Promise<Response>, status: number, maxMs = 8_000): Promise<number> {
  const t = performance.now();
  for (;;) {
    const res = await probe();
    await res.body?.cancel();
    const ms = performance.now() - t;
    if (res.status === status || ms > maxMs) return Math.round(ms);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * Issue 41 item 2, with two real instances A and B on one PostgreSQL. Before: after a sign-out on B,
 * A answered 200 for 4,972 ms (the identity cache of decision 0004, forgotten only where the change
 * was made); a demoted member could still read on A for about 5 s.
 */
async function signOutAndDemote(cluster: Cluster): Promise<{ logoutMs: number; demoteMs: number }> {
  const [a, b] = cluster.instances.map((s) => s.url) as [string, string];
  const app = dbOf(cluster);
  const clientId = await makeClient(app, 'Cluster Co');
  const owner = await makeUser(app, { [clientId]: 'purple_owner' });
  const member = await makeUser(app, { [clientId]: 'green_manager' });

  // Sign-out on B holds on A at once.
  const user = new ClusterBrowser();
  await user.signIn(a, member.email, PASSWORD);
  for (const base of [a, b, a]) expect((await user.get(`${base}/v1/api/user/self`)).status).toBe(200);
  const self = () => user.get(`${a}/v1/api/user/self`);
  const warm = await self();
  expect(warm.status).toBe(200);
  const cookies = new Map(user.cookies);
  expect((await user.call('POST', `${b}/v1/api/logout`)).status).toBeLessThan(300);
  // The old cookie, kept as a thief would.
  for (const [k, v] of cookies) user.cookies.set(k, v);
  const logoutMs = await msUntil(self, 401);

  // A role change made on B holds on A at once.
  const boss = new ClusterBrowser();
  await boss.signIn(b, owner.email, PASSWORD);
  const worker = new ClusterBrowser();
  await worker.signIn(a, member.email, PASSWORD);
  const list = () => worker.get(`${a}/v1/rest/client/${clientId}/users`, { 'x-client-id': clientId });
  expect((await list()).status).toBe(200);
  const demoted = await boss.call('PATCH', `${b}/v1/rest/client/${clientId}/user/${member.id}`, {
    body: { role: 'grey_viewer' },
    headers: { 'x-client-id': clientId },
  });
  expect(demoted.status).toBe(200);
  const demoteMs = await msUntil(list, 403);
  return { logoutMs, demoteMs };
}

describe.skipIf(!CLUSTER_REDIS_READY)('two instances on one PostgreSQL and Redis', () => {
  it('a sign-out and a role change on B hold on A at once (told over Redis)', async () => {
    const redis = await startRedis();
    const cluster = await startCluster(2, { REDIS_URL: redis.url });
    const { logoutMs, demoteMs } = await signOutAndDemote(cluster);
    console.info(
      `cluster-identity (Redis): sign-out held on A after ${logoutMs} ms, demotion after ${demoteMs} ms`,
    );
    // Far below the cache's 5 s: A was told, not timed out (measured: a few ms).
    expect(logoutMs).toBeLessThan(2_000);
    expect(demoteMs).toBeLessThan(2_000);
  }, 360_000);
});

describe.skipIf(!CLUSTER_READY)('two instances on one PostgreSQL without Redis', () => {
  it('keep no identity cache, so a sign-out and a role change on B hold on A at once', async () => {
    const cluster = await startCluster(2);
    const { logoutMs, demoteMs } = await signOutAndDemote(cluster);
    console.info(
      `cluster-identity (no Redis): sign-out held on A after ${logoutMs} ms, demotion after ${demoteMs} ms`,
    );
    expect(logoutMs).toBeLessThan(2_000);
    expect(demoteMs).toBeLessThan(2_000);
  }, 360_000);
});
