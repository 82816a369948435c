import { describe, expect, it } from 'vitest';
import { createTestApp } from './helpers.ts';
import { FUZZ_ENV, describeFinding, fuzz } from './fuzz.ts';

/**
 * Issue 20: every operation of /v1/docs/json, fuzzed from its own schemas (test/fuzz.ts), signed in
 * as the demo owner; issue 37: with another client's ids in bodies' id fields too, which must be refused. A fixed seed and a bounded count here; `npm run bench -- fuzz` runs longer.
 * FUZZ_SEED and FUZZ_RUNS (requests per operation) change them for a one-off run.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20_2026);
const RUNS = Number(process.env.FUZZ_RUNS ?? 4);

describe('fuzz over every route of the OpenAPI document', () => {
  it(`no 5xx, no reply hanging (over 30 s), a 422 names its field, nothing written on a 4xx (seed ${SEED}, ${RUNS} per route)`, async () => {
    const app = await createTestApp({ workers: false, env: FUZZ_ENV });
    // Speed is the benches' to measure (`npm run bench -- fuzz` keeps the 2 s limit); beside the
    // other suites on two cores a wide report took 8 s, so here the limit only catches a hang.
    const stats = await fuzz(app, { seed: SEED, runsPerOperation: RUNS, maxMs: 30_000 });
    console.info(
      `fuzz: ${stats.requests} requests over ${stats.operations} operations, ${stats.s5xx} 5xx ` +
        `(and ${stats.vendorUnreachable} 502s naming an unreachable vendor), ` +
        `${stats.slow} slow (max ${stats.maxMs.toFixed(0)} ms), ${stats.writesOn4xx} writes on 4xx ` +
        `(${stats.writesOn2xx} on 2xx), ` +
        `${stats.unnamed422} unnamed 422s, ${stats.foreignIdAccepted} of ${stats.foreignIdRequests} with another ` +
        `client's id in the body accepted; slowest ${JSON.stringify(stats.slowest)}; seed ${stats.seedMs.toFixed(0)} ms, write checks ${stats.pictureMs.toFixed(0)} ms; statuses ${JSON.stringify(stats.byStatus)}`,
    );
    expect(stats.operations).toBeGreaterThan(100);
    // The fuzzer reached the handlers, not only the schemas.
    expect(Object.keys(stats.byStatus).filter((s) => s.startsWith('2')).length).toBeGreaterThan(0);
    // Another client's ids went into the bodies (issue 37).
    expect(stats.foreignIdRequests).toBeGreaterThan(10);
    expect(stats.findings.map(describeFinding)).toEqual([]);
  }, 240_000);
});
