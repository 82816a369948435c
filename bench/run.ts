/**
 * Runs the benchmarks and prints each figure next to a baseline measured in the same run.
 * `npm run bench` (all) or `npm run bench -- healthz startup bundle`. BENCH_SECONDS sets load length;
 * `--rows N` sets the size of the import benchmark's file (default 1,000,000); `--events N` the
 * number of webhook events (default 2,000); `--runs N` and `--seed N` the fuzz run's requests per
 * operation (default 40) and seed.
 */
import * as adAudience from './ad-audience.bench.ts';
import * as adAudienceLinkedIn from './ad-linkedin.bench.ts';
import * as adAudienceGoogle from './ad-google.bench.ts';
import * as adStats from './ad-stats.bench.ts';
import * as auth from './auth.bench.ts';
import * as bundle from './bundle.bench.ts';
import * as crmSync from './crm-sync.bench.ts';
import * as erasure from './erasure.bench.ts';
import * as exportBench from './export.bench.ts';
import * as healthz from './healthz.bench.ts';
import * as hubspotLists from './hubspot-lists.bench.ts';
import * as fileImport from './import.bench.ts';
import * as fuzzBench from './fuzz.bench.ts';
import * as ingest from './ingest.bench.ts';
import * as ingestFold from './ingest-fold.ts';
import * as journeys from './journeys.bench.ts';
import * as lighthouse from './lighthouse.bench.ts';
import * as memory from './memory.bench.ts';
import * as prospects from './prospects.bench.ts';
import * as publicPages from './public-pages.bench.ts';
import * as reports from './reports.bench.ts';
import * as retention from './retention.bench.ts';
import * as startup from './startup.bench.ts';
import * as sync from './sync.bench.ts';
import * as webhooks from './webhooks.bench.ts';

const names: string[] = [];
const options = new Map<string, string>();
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const arg = args[i]!;
  if (arg.startsWith('--')) options.set(arg.slice(2), args[++i] ?? '');
  else names.push(arg);
}
const rows = options.has('rows') ? Number(options.get('rows')) : undefined;
if (rows !== undefined && !(Number.isInteger(rows) && rows > 0))
  throw new Error('--rows must be a whole number');
const events = options.has('events') ? Number(options.get('events')) : undefined;
if (events !== undefined && !(Number.isInteger(events) && events > 0))
  throw new Error('--events must be a whole number');

function intOption(name: string): number | undefined {
  if (!options.has(name)) return undefined;
  const n = Number(options.get(name));
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a whole number`);
  return n;
}

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const all: Record<string, () => unknown> = {
  bundle: () => bundle.run(),
  lighthouse: () => lighthouse.run(),
  startup: () => startup.run(),
  healthz: () => healthz.run(seconds),
  auth: () => auth.run(seconds),
  import: () => fileImport.run({ rows }),
  ingest: () => ingest.run(seconds),
  'ingest-fold': () => ingestFold.run(),
  sync: () => sync.run(),
  'crm-sync': () => crmSync.run(),
  'hubspot-lists': () => hubspotLists.run(),
  pages: () => publicPages.run(seconds),
  prospects: () => prospects.run(),
  journeys: () => journeys.run(),
  webhooks: () => webhooks.run({ events }),
  memory: () => memory.run(),
  export: () => exportBench.run(),
  reports: () => reports.run(),
  retention: () => retention.run(),
  fuzz: () => fuzzBench.run({ runs: intOption('runs'), seed: intOption('seed') }),
  'ad-audience': () => adAudience.run(),
  erasure: () => erasure.run(),
  'ad-linkedin': () => adAudienceLinkedIn.run(),
  'ad-google': () => adAudienceGoogle.run(),
  'ad-stats': () => adStats.run(),
};
const chosen = names.length ? names : Object.keys(all);
for (const name of chosen) {
  const bench = all[name];
  if (!bench) throw new Error(`unknown benchmark ${name}; choose from ${Object.keys(all).join(', ')}`);
  await bench();
}
