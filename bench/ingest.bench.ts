import { randomBytes } from 'node:crypto';
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { count, sql } from 'drizzle-orm';
import pg from 'pg';
import { openDatabase } from '../apps/server/src/db/client.ts';
import type { Database } from '../apps/server/src/db/client.ts';
import {
  cadenceDays,
  cadences,
  clients,
  content,
  engagementEvents,
  integrations,
  prospects,
  salesReps,
  targets,
  uncountedEvents,
} from '../apps/server/src/db/schema/index.ts';
import {
  enqueueEvents,
  foldQueue,
  peekVersioned,
  vacuumQueue,
} from '../apps/server/src/modules/tracking/repository.ts';
import { QUEUE_VACUUM_EVENTS } from '../apps/server/src/modules/tracking/service.ts';
import { createSuppressionKey } from '../apps/server/src/modules/suppressions/key.ts';
import { judge } from '../apps/server/src/modules/tracking/verdict.ts';
import { SUPER_RULE } from '@rally/shared/schemas/tracking';
import { cpuSeconds, postgresCpuSeconds, report, root, startProcess } from './lib.ts';
import type { Server } from './lib.ts';
import { distinctTags, mixLines, queuedImpression, seedMix } from './ingest-mix.ts';
import { MIX_AGENTS } from './ingest-mix.ts';

/**
 * Impression ingest (issues 7 and 19): `GET /t/{token}/ad/300x250.png` on the real server process
 * across many targets' tokens (cached ad images, every request counted: its event appended to the
 * ingest queue before the answer, then folded into the target's counters with the superprospect
 * rule by the consumer: docs/decisions/0012), loaded by wrk (one thread, 50
 * connections, round-robin over the tag paths, a browser user agent) as a ratio of a bare Node
 * `http` server answering the same PNG bytes loaded the same way in the same run (issue 19's aim
 * ≥ 0.2); p99 latency; and the check that the events stored and counted equal the requests
 * answered 2xx. Then two limits from the same run: the server's own /healthz (its HTTP work with no
 * I/O) and the database alone doing the path's work (appends and the consumer); together they bound what this design
 * can reach on the machine. Real PostgreSQL when BENCH_DATABASE_URL or TEST_DATABASE_URL is set (a
 * scratch database, dropped after), else embedded PGlite in a temporary data folder. wrk comes from
 * Debian's packages (installed when missing).
 *
 * Beside it, in the same run (issue 43), the realistic mix of ingest-mix.ts: three clients' cadences,
 * ads like the demo's that name the prospect or the rep, the four sizes and the e-mail rendition,
 * Zipf-skewed repeats per target, and the agents and addresses of mail clients, image proxies,
 * Apple's prefetch and gateways (the server trusts the loopback proxy's X-Forwarded-For), against a
 * bare server answering a real ad of each rendition. Every answer must be stored once, counted or
 * not. `BENCH_INGEST_MIX=uniform` or `realistic` runs one of the two.
 */

const TARGETS = 2_000;
/** Where the mix's rendered images are kept between runs (BENCH_INGEST_ADS). */
const KEPT_ADS = process.env.BENCH_INGEST_ADS ?? path.join(tmpdir(), 'rally-bench-ingest-ads');
const REPS = 8;
const CONNECTIONS = 50;
const UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

/** A client with ads on for one cadence, published content on day 1, selected reps and targets. */
export async function seed(database: Database): Promise<string[]> {
  const { db } = database;
  const [client] = await db.insert(clients).values({ name: 'Bench Co' }).returning();
  const clientId = client!.id;
  const [integration] = await db.insert(integrations).values({ clientId, source: 'fileforce' }).returning();
  const integrationId = integration!.id;
  const reps = await db
    .insert(salesReps)
    .values(
      Array.from({ length: REPS }, (_, i) => ({
        clientId,
        integrationId,
        externalId: `rep${i}`,
        firstName: `Rep${i}`,
        lastName: 'Bench',
        title: 'SDR',
        companyName: 'Bench Co',
        calendarUrl: 'https://cal.example/bench',
        selected: true,
      })),
    )
    .returning({ id: salesReps.id });
  const [ad] = await db
    .insert(content)
    .values({
      clientId,
      name: 'Bench ad',
      status: 'published',
      templateId: 1,
      title: 'Ship faster with Bench Co',
      imageText: 'Robots that pick and pack',
      colors: { background: '#ffffff', text: '#000000', accent: '#1c7ed6' },
      landingPagePayload: { content_html: '', footer_html: '', hero_html: '', hero_img: '' },
    })
    .returning({ id: content.id });
  const [cadence] = await db
    .insert(cadences)
    .values({ clientId, integrationId, externalId: 'bench', name: 'Bench cadence', isSuper: true })
    .returning({ id: cadences.id });
  await db.insert(cadenceDays).values({
    clientId,
    cadenceId: cadence!.id,
    dayNumber: 1,
    contentDays: [{ content_id: ad!.id, day_transition_actions: [] }],
  });
  const tokens: string[] = [];
  for (let start = 0; start < TARGETS; start += 500) {
    const n = Math.min(500, TARGETS - start);
    const people = await db
      .insert(prospects)
      .values(
        Array.from({ length: n }, (_, i) => ({
          clientId,
          integrationId,
          externalId: `p${start + i}`,
          firstName: `First${start + i}`,
          lastName: 'Bench',
        })),
      )
      .returning({ id: prospects.id });
    const rows = await db
      .insert(targets)
      .values(
        people.map((p, i) => ({
          clientId,
          cadenceId: cadence!.id,
          prospectId: p.id,
          salesRepId: reps[(start + i) % REPS]!.id,
        })),
      )
      .returning({ token: targets.token });
    tokens.push(...rows.map((r) => r.token));
  }
  return tokens;
}

type Load = { rps: number; p99: number; ok: number; bad: number; cpu: Cpu };
/** CPU µs per 2xx answer: the server process, PostgreSQL's processes, the load generator (wrk). */
type Cpu = { server: number; database: number; load: number };

/**
 * wrk's script: requests round-robin over the paths of a file (built once, so wrk formats nothing
 * per request), a browser user agent (the mix's lines name their own agent and address), and no new request after `seconds` (`delay` holds every
 * connection from then on), so that the requests in flight are answered and counted before wrk
 * stops: every request the server saw is in the figures. LuaJIT's ffi reads the monotonic clock.
 */
const WRK_SCRIPT = `
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_nsec; } rally_timespec;
int clock_gettime(int clk, rally_timespec *tp);
]]
local ts = ffi.new("rally_timespec")
local function now()
  ffi.C.clock_gettime(1, ts)
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) * 1e-9
end
local AGENTS = { ${MIX_AGENTS.map((a) => JSON.stringify(a.ua)).join(', ')} }
local reqs, i, deadline
function init(args)
  wrk.headers["User-Agent"] = "${UA}"
  reqs = {}
  -- A line is a path, or (the realistic mix) a path, an agent's index and the client's address.
  for line in io.lines(args[1]) do
    local p, a, ip = line:match("^([^\t]+)\t(%d+)\t(.+)$")
    if p then
      reqs[#reqs + 1] = wrk.format("GET", p, { ["User-Agent"] = AGENTS[tonumber(a) + 1], ["X-Forwarded-For"] = ip })
    else
      reqs[#reqs + 1] = wrk.format("GET", line)
    end
  end
  i = tonumber(args[2]) % #reqs
  deadline = now() + tonumber(args[3])
end
function request()
  i = i + 1
  if i > #reqs then i = 1 end
  return reqs[i]
end
function delay()
  if now() < deadline then return 0 end
  return 3600000
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %d %d %d %d %d %f\\n", summary.requests, e.status,
    e.connect + e.read + e.write, e.timeout, 0, latency:percentile(99) / 1000))
end
`;

let scratchDir = '';
/** The scratch database's name, to charge only its PostgreSQL processes. */
let scratchDb: string | undefined;
let pathFiles = 0;

/** One wrk run: one thread, CONNECTIONS connections, `paths` round-robin for `seconds`. */
async function wrk(
  url: string,
  paths: string[],
  seconds: number,
): Promise<Omit<Load, 'cpu'> & { loadCpu: number }> {
  const script = path.join(scratchDir, 'ingest.lua');
  writeFileSync(script, WRK_SCRIPT);
  const file = path.join(scratchDir, `paths-${pathFiles++}.txt`);
  writeFileSync(file, paths.join('\n') + '\n');
  const start = Math.floor(Math.random() * paths.length);
  // `times` prints the CPU wrk used (children's user and system time).
  const command =
    `wrk -t1 -c${CONNECTIONS} -d${seconds + 3}s --timeout 10s -s ${script} ${url} ` +
    `-- ${file} ${start} ${seconds}; times`;
  const out = await new Promise<string>((resolve, reject) => {
    execFile('bash', ['-c', command], { maxBuffer: 1 << 20 }, (err, stdout, stderr) =>
      err ? reject(new Error(`wrk failed: ${stderr}`)) : resolve(stdout),
    );
  });
  const m = out.match(/RESULT (\d+) (\d+) (\d+) (\d+) \d+ ([\d.]+)/);
  if (!m) throw new Error(`wrk printed no result:\n${out}`);
  const [requests, status, socket, timeout] = [m[1], m[2], m[3], m[4]].map(Number) as [
    number,
    number,
    number,
    number,
  ];
  const times = [...out.matchAll(/(\d+)m([\d.]+)s/g)].map((t) => Number(t[1]) * 60 + Number(t[2]));
  // `times` prints the shell's own user/system, then its children's.
  const loadCpu = (times[2] ?? 0) + (times[3] ?? 0);
  const ok = requests - status;
  return { rps: ok / seconds, p99: Number(m[5]), ok, bad: status + socket + timeout, loadCpu };
}

/** Runs a load and charges the CPU each party used during it to the requests answered 2xx. */
async function charged(server: Server, url: string, paths: string[], seconds: number): Promise<Load> {
  const s0 = cpuSeconds(server.child.pid!);
  const d0 = postgresCpuSeconds(scratchDb);
  const r = await wrk(url, paths, seconds);
  const d1 = postgresCpuSeconds(scratchDb);
  const s1 = cpuSeconds(server.child.pid!);
  const n = Math.max(1, r.ok);
  const cpu = {
    server: ((s1 - s0) * 1e6) / n,
    // A PostgreSQL process that exits during the run takes its time out of the sum: never below 0.
    database: Math.max(0, ((d1 - d0) * 1e6) / n),
    load: (r.loadCpu * 1e6) / n,
  };
  return { rps: r.rps, p99: r.p99, ok: r.ok, bad: r.bad, cpu };
}

/** Files under a folder (the renderer's disk cache: one per image rendered). */
function countFiles(dir: string): number {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
  } catch {
    return 0;
  }
}

function hello(server: Server, url: string, seconds: number): Promise<Load> {
  return charged(server, url, ['/healthz'], seconds);
}

/**
 * An ad's PNG bytes as the real server serves them, fetched with no user agent: judged a bot's, so
 * stored uncounted (the check below counts it among the answers).
 */
function adBytes(url: string, tagPath: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    http
      .get(`${url}${tagPath}`, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          res.statusCode === 200 && res.headers['content-type'] === 'image/png'
            ? resolve(Buffer.concat(chunks))
            : reject(new Error(`the ad answered ${res.statusCode} ${res.headers['content-type']}`)),
        );
      })
      .on('error', reject);
  });
}

function cpuLine(cpu: Cpu[]): string {
  const mean = (k: keyof Cpu) => Math.round(cpu.reduce((n, c) => n + c[k], 0) / cpu.length);
  const total = mean('server') + mean('database') + mean('load');
  return `server ${mean('server')}, PostgreSQL ${mean('database')}, load generator ${mean('load')}: ${total} µs`;
}

/**
 * The classifier's cost per request (issue 38, decision 0017): `judge()` in this process, µs per
 * call, as the fast lane calls it for each impression. `cached`: the load's one browser agent (the
 * agent verdict cache hits, as for a real mailbox's few clients); `fresh`: a new agent string each
 * call (every rule and isbot run), from addresses spread over IPv4 (the range lookups). The server
 * process's CPU per impression request of the same run is its baseline: the share it takes.
 */
function classificationCost(): { cached: number; fresh: number } {
  const N = 200_000;
  const time = (make: (i: number) => Parameters<typeof judge>[0]) => {
    const reqs = Array.from({ length: N }, (_, i) => make(i));
    let sink = 0;
    for (let i = 0; i < 20_000; i++) sink += judge(reqs[i]!, 'impression').verdict.length;
    const t0 = process.hrtime.bigint();
    for (const r of reqs) sink += judge(r, 'impression').verdict.length;
    const us = Number(process.hrtime.bigint() - t0) / 1000 / N;
    if (sink === 0) throw new Error('unreachable');
    return us;
  };
  const ip = (i: number) => `${((i * 7) % 223) + 1}.${(i * 13) % 256}.${(i * 31) % 256}.${i % 256}`;
  return {
    cached: time((i) => ({ method: 'GET', headers: { 'user-agent': UA }, ip: ip(i) })),
    // Under 5,000 distinct agents per pass would hit the cache: each string is new.
    fresh: time((i) => ({ method: 'GET', headers: { 'user-agent': `${UA} Bench/${i}` }, ip: ip(i) })),
  };
}

/**
 * The database alone: the same batch statement the server runs, called straight from this process
 * with batches the size of the load's connections (what a group commit gathers) on four
 * connections, no HTTP. Events per second.
 */
export async function databaseAlone(database: Database, tokens: string[], seconds: number): Promise<number> {
  // The request path's database work (issue 19, docs/decisions/0012): the state read once per
  // target (the cache's fill), appends of 50 decided events from 4 connections, and the single
  // consumer folding them; events/s counted until the consumer has caught up.
  const { db } = database;
  // Decision 0027: the state read tests the suppression list under the app's key (any key here).
  const key = createSuppressionKey('bench-suppression-key-'.repeat(2));
  const states = (await Promise.all(tokens.map((t) => peekVersioned(db, t, key)))).filter((s) => s !== null);
  let next = 0;
  let appending = true;
  let folded = 0;
  let unvacuumed = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  const fold = (async () => {
    for (;;) {
      // With the server's default burst and landing-view windows (TRACKING_BURST_MS,
      // TRACKING_LANDING_VIEW_MS), as its consumer folds: their checks are part of the fold's plan.
      const { taken } = await foldQueue(db, 5_000, SUPER_RULE, 2_000, 15_000);
      folded += Math.max(0, taken);
      // Vacuumed as the server's consumer does (service.ts): without it the queue's dead rows grow
      // with every fold, and the fold's plan, made when the queue was short, is never made again
      // (a vacuum invalidates it): folds slowed to a second and more, 2,263-13,108 events/s by run.
      unvacuumed += Math.max(0, taken);
      if (unvacuumed >= QUEUE_VACUUM_EVENTS) {
        unvacuumed = 0;
        await vacuumQueue(db);
      }
      // -1: another process holds the fold (see the check after the server stops); not caught up yet.
      if (!appending && taken >= 0 && taken < 5_000) return;
      if (taken < 5_000) await new Promise((r) => setTimeout(r, 200));
    }
  })();
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (performance.now() < end) {
        const at = new Date().toISOString();
        const items = Array.from({ length: CONNECTIONS }, (_, ord) =>
          queuedImpression(states[next++ % states.length]!, ord, at),
        );
        await enqueueEvents(db, items);
      }
    }),
  );
  appending = false;
  await fold;
  return folded / ((performance.now() - started) / 1000);
}

/** Events stored (counted, and kept uncounted with their verdict) and the targets' impressions. */
async function storedEvents(
  database: Database,
): Promise<{ events: number; uncounted: number; counted: number }> {
  const [e] = await database.db.select({ n: count() }).from(engagementEvents);
  const [u] = await database.db.select({ n: count() }).from(uncountedEvents);
  const [t] = await database.db
    .select({ n: sql<number>`coalesce(sum(${targets.impressions}), 0)::int` })
    .from(targets);
  return { events: e!.n, uncounted: u!.n, counted: t!.n };
}

/** wrk from Debian's packages when it is not on the machine yet (issue 19). */
function ensureWrk(): void {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
  } catch (err) {
    // wrk --version exits 1 after printing; only a missing binary is ENOENT.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return;
    console.log('installing wrk (apt-get install wrk)');
    execFileSync('bash', ['-c', 'apt-get update -qq && apt-get install -y -qq wrk'], { stdio: 'inherit' });
  }
}

export async function run(seconds: number) {
  ensureWrk();
  const adminUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'rally-bench-ingest-'));
  scratchDir = mkdtempSync(path.join(tmpdir(), 'rally-bench-wrk-'));
  let databaseUrl: string | undefined;
  let scratch: string | undefined;
  if (adminUrl) {
    scratch = `rally_bench_${randomBytes(5).toString('hex')}`;
    scratchDb = scratch;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database ${scratch}`);
    await admin.end();
    const u = new URL(adminUrl);
    u.pathname = `/${scratch}`;
    databaseUrl = u.toString();
  }
  const open = () => openDatabase({ databaseUrl, dataDir });
  // BENCH_INGEST_MIX: `uniform` (issue 19's case), `realistic` (issue 43's mix), else both in one run.
  const mode = process.env.BENCH_INGEST_MIX ?? 'both';
  const withUniform = mode !== 'realistic';
  const withMix = mode !== 'uniform';
  let bare: Server | undefined;
  let bareMix: Server | undefined;
  let real: Server | undefined;
  try {
    const setup = await open();
    const tokens = await seed(setup);
    const mix = withMix ? await seedMix(setup) : [];
    await setup.close();

    // The mix's images, rendered by an earlier run of the bench (their keys are content hashes of the
    // same seeded names, pictures and ads): first renders cost 0.05–0.6 s each, minutes in all.
    const adsDir = path.join(dataDir, 'cache', 'ads');
    if (withMix && existsSync(KEPT_ADS)) cpSync(KEPT_ADS, adsDir, { recursive: true });
    const keptImages = countFiles(adsDir);
    real = await startProcess(path.join(root, 'apps/server/src/main.ts'), {
      DATA_DIR: dataDir,
      SEED_DEMO: 'false',
      // The mix's lines carry the client's address as a proxy would (Apple's, the gateways' ranges).
      TRUST_PROXY: 'loopback',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    });
    // The server prints localhost; the load generator goes straight to the IPv4 loopback it listens on.
    const realUrl = real.url.replace('//localhost:', '//127.0.0.1:');
    // Every request answered 2xx, each of which must be stored once (counted or not).
    let answered = 0;
    // The baseline serves the very bytes of the real ad.
    const pngFile = path.join(scratchDir, 'ad.png');
    writeFileSync(pngFile, await adBytes(realUrl, `/t/${tokens[0]}/ad/300x250.png`));
    answered += 1;
    bare = await startProcess(path.join(root, 'bench/png-server.ts'), { PNG_FILE: pngFile });

    // The mix: its first renders made here (each image once, 4 at a time), and a real ad of each
    // rendition for its bare server.
    const lines = withMix ? mixLines(mix, 200_000) : [];
    let firstRenders = '';
    if (withMix) {
      const tags = distinctTags(lines);
      const pngDir = mkdtempSync(path.join(scratchDir, 'mix-'));
      const t0 = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (next < tags.length) {
            const tag = tags[next++]!;
            const png = await adBytes(realUrl, tag);
            answered += 1;
            const rendition = /\/ad\/([a-z0-9]+)\.png$/.exec(tag)![1]!;
            const file = path.join(pngDir, `${rendition}.png`);
            if (!existsSync(file)) writeFileSync(file, png);
          }
        }),
      );
      const images = countFiles(adsDir);
      firstRenders =
        `${tags.length} tags fetched once in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${images} distinct ` +
        `images, ${images - keptImages} rendered (the rest from ${KEPT_ADS})`;
      cpSync(adsDir, KEPT_ADS, { recursive: true });
      bareMix = await startProcess(path.join(root, 'bench/png-server.ts'), { PNG_DIR: pngDir });
    }

    // Warm up (the uniform ad gets rendered and cached here).
    const uniformPaths = tokens.map((t) => `/t/${t}/ad/300x250.png`);
    const warm: Load[] = [];
    if (withUniform) {
      warm.push(await charged(real, realUrl, uniformPaths, 3));
      await charged(bare, bare.url, uniformPaths, 2);
    }
    if (bareMix) {
      warm.push(await charged(real, realUrl, lines, 3));
      await charged(bareMix, bareMix.url, lines, 2);
    }
    answered += warm.reduce((n, r) => n + r.ok, 0);

    const runs: Load[] = [];
    const bases: Load[] = [];
    const mixRuns: Load[] = [];
    const mixBases: Load[] = [];
    // The ceiling: the same server's /healthz, which does no I/O, so what any route of it can reach.
    const ceilings: Load[] = [];
    const imagesBefore = countFiles(path.join(dataDir, 'cache', 'ads'));
    for (let i = 0; i < 2; i++) {
      if (withUniform) {
        bases.push(await charged(bare, bare.url, uniformPaths, seconds));
        runs.push(await charged(real, realUrl, uniformPaths, seconds));
      }
      if (bareMix) {
        mixBases.push(await charged(bareMix, bareMix.url, lines, seconds));
        mixRuns.push(await charged(real, realUrl, lines, seconds));
      }
      ceilings.push(await hello(real, realUrl, seconds));
    }
    const rendersInRuns = countFiles(path.join(dataDir, 'cache', 'ads')) - imagesBefore;
    answered += [...runs, ...mixRuns].reduce((n, r) => n + r.ok, 0);
    const bad = [...warm, ...runs, ...mixRuns, ...ceilings].reduce((n, r) => n + r.bad, 0);
    const driver = databaseUrl ? 'PostgreSQL' : 'PGlite';
    const mean = (xs: Load[]) => xs.reduce((n, r) => n + r.rps, 0) / xs.length;
    const ceiling = mean(ceilings);

    await real.stop();
    real = undefined;
    const after = await open();
    // The server's shutdown folds the queue for at most 5 s, then leaves the rest for its next
    // start; when the load outran the consumer (PostgreSQL on a busy machine), fold it here as that
    // start would, so the check below compares every answered request.
    // `taken` is -1 while another process holds the fold: the stopped server's last fold can still be
    // running in its database backend (seen once after a loaded run: counted before it ended, the
    // check below said MISMATCH and the database-alone figure was 0). Wait for it to commit or roll back.
    let leftQueued = 0;
    const heldUntil = Date.now() + 300_000;
    for (;;) {
      const { taken } = await foldQueue(after.db, 5_000, SUPER_RULE);
      if (taken < 0) {
        if (Date.now() > heldUntil) throw new Error('the fold stayed held by another process for 300 s');
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      leftQueued += taken;
      if (taken < 5_000) break;
    }
    const stored = await storedEvents(after);
    const floor = await databaseAlone(after, withUniform ? tokens : mix.map((m) => m.token), seconds);
    await after.close();

    const scenario = (name: string, rs: Load[], bs: Load[]) => {
      const rps = mean(rs);
      const base = mean(bs);
      report(
        `${name} (${driver})`,
        `${Math.round(rps)} req/s`,
        `${Math.round(base)} req/s (bare PNG)`,
        rps / base,
      );
      console.log(
        `  runs: ${rs.map((r, k) => `${Math.round(r.rps)}/${Math.round(bs[k]!.rps)} (${(r.rps / bs[k]!.rps).toFixed(3)})`).join(', ')}`,
      );
      const p99 = Math.max(...rs.map((r) => r.p99));
      const basep99 = Math.max(...bs.map((r) => r.p99));
      report(`  p99 latency`, `${p99.toFixed(1)} ms`, `${basep99.toFixed(1)} ms (bare PNG)`, p99 / basep99);
      // Where a request's CPU goes, measured during the runs above: the ratio is, roughly, the bare
      // request's total over the impression's, as the machine's cores are shared by all three.
      console.log(`  CPU per request, impression: ${cpuLine(rs.map((r) => r.cpu))}`);
      console.log(`  CPU per request, bare PNG:    ${cpuLine(bs.map((r) => r.cpu))}`);
      return base;
    };
    let base = 0;
    if (withUniform)
      base = scenario('ad impression ingest, uniform: one ad, 2,000 targets, 300x250', runs, bases);
    if (bareMix) {
      const b = scenario(
        `ad impression ingest, realistic mix: ${mix.length} targets, 3 clients, 5 sizes, Zipf repeats, mail clients`,
        mixRuns,
        mixBases,
      );
      base ||= b;
      console.log(`  first renders: ${firstRenders}; new images during the measured runs: ${rendersInRuns}`);
    }
    report(
      `  ceiling: the server's /healthz`,
      `${Math.round(ceiling)} req/s`,
      `${Math.round(base)} req/s (bare PNG)`,
      ceiling / base,
    );
    report(
      `  the database alone`,
      `${Math.round(floor)} events/s`,
      `${Math.round(base)} req/s (bare PNG)`,
      floor / base,
    );
    // Each request needs both the server's HTTP work and the database's; measured alone, each on
    // the whole machine, their costs per request add up: what no code of this design can beat here.
    const bound = 1 / (1 / ceiling + 1 / floor);
    report(
      `  bound: both on 2 cores`,
      `${Math.round(bound)} req/s`,
      `${Math.round(base)} req/s (bare PNG)`,
      bound / base,
    );
    console.log(`  CPU per request, /healthz:    ${cpuLine(ceilings.map((r) => r.cpu))}`);
    const verdictCost = classificationCost();
    const measured = [...runs, ...mixRuns];
    const serverUs = measured.reduce((n, r) => n + r.cpu.server, 0) / measured.length;
    report(
      `  classification (judge, agent cached)`,
      `${verdictCost.cached.toFixed(2)} µs/req`,
      `${Math.round(serverUs)} µs/req (server CPU per impression)`,
      verdictCost.cached / serverUs,
    );
    report(
      `  classification (a new agent each)`,
      `${verdictCost.fresh.toFixed(2)} µs/req`,
      `${Math.round(serverUs)} µs/req (server CPU per impression)`,
      verdictCost.fresh / serverUs,
    );
    // Every answer stored once (a person's counted, the rest uncounted with their verdict), and the
    // targets' counters hold every counted one (every target's ads run).
    const ok = stored.events + stored.uncounted === answered && stored.counted === stored.events && bad === 0;
    console.log(
      `  events stored ${stored.events} counted + ${stored.uncounted} uncounted, target impressions ${stored.counted}, ` +
        `answered 2xx ${answered}, other ${bad}: ${ok ? 'equal' : 'MISMATCH'} (${leftQueued} left queued at shutdown, folded after)`,
    );
    if (!ok) process.exitCode = 1;
  } finally {
    await bare?.stop();
    await bareMix?.stop();
    await real?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(scratchDir, { recursive: true, force: true });
    if (adminUrl && scratch) {
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      await admin.query(`drop database if exists ${scratch} with (force)`);
      await admin.end();
    }
  }
}
