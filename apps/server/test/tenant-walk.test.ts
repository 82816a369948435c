import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_ROLES } from '@rally/shared';
import { DEMO_CLIENTS, seedDemoAll } from '../src/db/seed.ts';
import { FUZZ_ENV, idsByTable, operationsOf, valid, watchWrites } from './fuzz.ts';
import { createTestApp } from './helpers.ts';
import { makeClient, signedIn } from './http.ts';

/**
 * Issue 20: the access matrix, walked with real resources. Acme has the demo data; an owner of
 * another client puts each of Acme's ids (one row of every table with a client_id) into every path
 * parameter of every operation of /v1/docs/json, with a body generated from the operation's schema.
 * None may succeed or write anything. New routes and tables are covered without a change here.
 */
describe("another client's ids, walked through every route", async () => {
  const app = await createTestApp({ workers: false, env: FUZZ_ENV });
  await seedDemoAll(app);
  const mine = await makeClient(app, 'Attacker');
  const { browser: attacker } = await signedIn(app, { [mine]: 'purple_owner' });
  const victim = await idsByTable(app, DEMO_CLIENTS.acme.id);
  const ops = (await operationsOf(app)).filter((o) =>
    o.params.some((p) => p.in === 'path' && p.name !== 'clientId'),
  );
  const writes = await watchWrites(app);

  it('an id of another client is refused (404, or the body refused first) and nothing is written', async () => {
    expect(victim.length).toBeGreaterThan(10);
    expect(ops.length).toBeGreaterThan(40);
    const leaks: string[] = [];
    const byStatus: Record<number, number> = {};
    let attempts = 0;
    let index = 0;
    for (const op of ops) {
      const idParams = op.params.filter((p) => p.in === 'path' && p.name !== 'clientId');
      const wantsInteger = idParams.some((p) => p.schema?.type === 'integer' || p.schema?.type === 'number');
      const candidates = victim.filter((v) =>
        wantsInteger ? !v.uuid : v.uuid || !idParams.some((p) => p.schema?.format === 'uuid'),
      );
      const body = op.body
        ? fc.sample(
            valid(op.body, { uuids: fc.constant(victim[0]!.id), integers: fc.constant(1), all: [] }),
            {
              seed: 20 + index++,
              numRuns: 1,
            },
          )[0]
        : undefined;
      for (const v of candidates) {
        const url = op.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'clientId' ? mine : v.id));
        await writes();
        const res = await attacker.request({
          method: op.method as InjectOptions['method'],
          url,
          payload: op.method === 'GET' || body === undefined ? undefined : (body as InjectOptions['payload']),
        });
        attempts++;
        byStatus[res.statusCode] = (byStatus[res.statusCode] ?? 0) + 1;
        const written = await writes();
        if (res.statusCode < 400 || res.statusCode >= 500 || written.length)
          leaks.push(
            `${op.method} ${url} (${v.table}) → ${res.statusCode} ${written.join(', ')} ${res.body.slice(0, 160)}`,
          );
      }
    }
    console.info(
      `tenant walk: ${attempts} cross-tenant attempts over ${ops.length} operations, ${leaks.length} leaks; statuses ${JSON.stringify(byStatus)}`,
    );
    expect(leaks).toEqual([]);
    expect(byStatus[404]).toBeGreaterThan(attempts / 2);
  }, 300_000);

  it('an SDR is refused (403) every write whose permission the role lacks', async () => {
    const { browser: sdr } = await signedIn(app, { [mine]: 'yellow_sdr' });
    const sdrHas = new Set<string>(BUILT_IN_ROLES.yellow_sdr);
    const lacking = app.routeAccess.filter(
      (r) => r.method !== 'GET' && typeof r.access === 'object' && !sdrHas.has(r.access.permission),
    );
    expect(lacking.length).toBeGreaterThan(10);
    for (const r of lacking) {
      const url = r.url.replace(':clientId', mine).replace(/:(\w+)/g, () => victim[0]!.id);
      await writes();
      const res = await sdr.request({ method: r.method as 'POST', url, payload: {} });
      expect(res.statusCode, `${r.method} ${r.url}`).toBe(403);
      expect(await writes(), `${r.method} ${r.url}`).toEqual([]);
    }
  });
});
