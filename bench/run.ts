/**
 * Runs the benchmarks and prints each figure next to a baseline measured in the same run.
 * `npm run bench` (all) or `npm run bench -- healthz startup bundle`. BENCH_SECONDS sets load length.
 */
import * as auth from './auth.bench.ts';
import * as bundle from './bundle.bench.ts';
import * as healthz from './healthz.bench.ts';
import * as startup from './startup.bench.ts';
import * as sync from './sync.bench.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const all: Record<string, () => unknown> = {
  bundle: () => bundle.run(),
  startup: () => startup.run(),
  healthz: () => healthz.run(seconds),
  auth: () => auth.run(seconds),
  sync: () => sync.run(),
};
const chosen = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(all);
for (const name of chosen) {
  const bench = all[name];
  if (!bench) throw new Error(`unknown benchmark ${name}; choose from ${Object.keys(all).join(', ')}`);
  await bench();
}
