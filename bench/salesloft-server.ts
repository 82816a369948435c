/**
 * The Salesloft fake as a server of its own for the sync benchmark (servers run as child processes,
 * so the fake's work is not counted as ours): seeded with `generateTeam(BENCH_SYNC_MEMBERSHIPS)`,
 * budget high enough never to throttle, driven by the bench over the IPC channel.
 */
import { pageCost, startFakeSalesloft } from '../apps/server/test/fakes/salesloft.ts';
import { STEP_DAYS, generateTeam } from './salesloft-team.ts';
import { serveOps } from './fake-server-ipc.ts';

const size = Number(process.env.BENCH_SYNC_MEMBERSHIPS ?? 50_000);
const started = performance.now();
const fake = await startFakeSalesloft({ rateLimitPerMinute: 1e9, seed: generateTeam(size) });
const seededMs = performance.now() - started;

const ops: Record<string, (arg: unknown) => unknown> = {
  info: () => ({
    apiUrl: fake.apiUrl,
    authUrl: fake.authUrl,
    clientId: fake.clientId,
    clientSecret: fake.clientSecret,
    seededMs,
  }),
  tokens: () => fake.grantTokens(),
  now: () => fake.now(),
  clear: () => fake.clearRequests(),
  /** Requests since the last clear, by resource, and their cost in Salesloft's budget. */
  requests: () => {
    const byResource: Record<string, number> = {};
    let cost = 0;
    for (const r of fake.requests) {
      const name = r.path.replace(/^\/v2\//, '').replace(/\.json$/, '');
      byResource[name] = (byResource[name] ?? 0) + 1;
      cost += pageCost(Number(r.query.get('page') ?? 1));
    }
    return { total: fake.requests.length, byResource, cost };
  },
  /** Moves these generated memberships on to their cadence's last step (a new latest action). */
  moveToLastStep: (ids) => {
    for (const id of ids as number[]) {
      fake.update('membership', id, { step_id: ((id - 1) % 10) * 100 + STEP_DAYS.length });
    }
  },
};

serveOps(ops, () => fake.close());
