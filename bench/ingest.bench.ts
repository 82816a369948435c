import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
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
} from '../apps/server/src/db/schema/index.ts';
import { ingestBatch } from '../apps/server/src/modules/tracking/repository.ts';
import { SUPER_RULE } from '@rally/shared/schemas/tracking';
import { cpuSeconds, postgresCpuSeconds, report, root, startProcess } from './lib.ts';
import type { Server } from './lib.ts';

/**
 * Impression ingest (issue 7 "Figures"): `GET /t/{token}/ad/300x250.png` on the real server process
 * across many targets' tokens (cached ad images, every request counted: an event, the target's
 * counters and the superprospect rule in the same transaction), as a ratio of the bare Fastify
 * hello-world in the same run (aim ≥ 0.4); p99 latency; and the check that the events stored equal
 * the requests answered 2xx. Then two limits from the same run: the server's own /healthz (its HTTP
 * work with no I/O) and the database alone running the ingest statement; together they bound what
 * this design can reach on the machine. Real PostgreSQL when BENCH_DATABASE_URL or TEST_DATABASE_URL is set (a
 * scratch database, dropped after), else embedded PGlite in a temporary data folder.
 */

const TARGETS = 2_000;
const REPS = 8;
const CONNECTIONS = 50;
const UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

/** A client with ads on for one cadence, published content on day 1, selected reps and targets. */
async function seed(database: Database): Promise<string[]> {
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
/** CPU µs per 2xx answer: the server process, PostgreSQL's processes, the load generator (this process). */
type Cpu = { server: number; database: number; load: number };

/** Runs a load and charges the CPU each party used during it to the requests answered 2xx. */
async function charged(server: Server, fire: () => Promise<autocannon.Result>): Promise<Load> {
  const s0 = cpuSeconds(server.child.pid!);
  const d0 = postgresCpuSeconds();
  const l0 = process.cpuUsage();
  const r = await fire();
  const l1 = process.cpuUsage(l0);
  const d1 = postgresCpuSeconds();
  const s1 = cpuSeconds(server.child.pid!);
  const n = Math.max(1, r['2xx']);
  const cpu = {
    server: ((s1 - s0) * 1e6) / n,
    // A PostgreSQL process that exits during the run takes its time out of the sum: never below 0.
    database: Math.max(0, ((d1 - d0) * 1e6) / n),
    load: (l1.user + l1.system) / n,
  };
  return { rps: r['2xx'] / r.duration, p99: r.latency.p99, ok: r['2xx'], bad: r.non2xx + r.errors, cpu };
}

/** Impressions round-robin over the tokens; `amount` requests, so every answer is in the figures. */
async function impressions(server: Server, url: string, tokens: string[], amount: number): Promise<Load> {
  let next = Math.floor(Math.random() * tokens.length);
  return charged(server, () =>
    autocannon({
      url,
      connections: CONNECTIONS,
      amount,
      headers: { 'user-agent': UA },
      requests: [
        {
          setupRequest: (req) => ({ ...req, path: `/t/${tokens[next++ % tokens.length]}/ad/300x250.png` }),
        },
      ],
    }),
  );
}

function hello(server: Server, url: string, seconds: number): Promise<Load> {
  return charged(server, () =>
    autocannon({ url: `${url}/healthz`, connections: CONNECTIONS, duration: seconds }),
  );
}

function cpuLine(cpu: Cpu[]): string {
  const mean = (k: keyof Cpu) => Math.round(cpu.reduce((n, c) => n + c[k], 0) / cpu.length);
  const total = mean('server') + mean('database') + mean('load');
  return `server ${mean('server')}, PostgreSQL ${mean('database')}, load generator ${mean('load')}: ${total} µs`;
}

/**
 * The database alone: the same batch statement the server runs, called straight from this process
 * with batches the size of the load's connections (what a group commit gathers) on four
 * connections, no HTTP. Events per second.
 */
async function databaseAlone(database: Database, tokens: string[], seconds: number): Promise<number> {
  let events = 0;
  let next = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (performance.now() < end) {
        const at = new Date().toISOString();
        const items = Array.from({ length: CONNECTIONS }, (_, ord) => ({
          ord,
          token: tokens[next++ % tokens.length]!,
          type: 'impression' as const,
          size: '300x250',
          at,
          allow: false,
        }));
        const result = await ingestBatch(database.db, items, SUPER_RULE);
        events += result.recorded.size;
      }
    }),
  );
  return events / ((performance.now() - started) / 1000);
}

async function storedEvents(database: Database): Promise<{ events: number; counted: number }> {
  const [e] = await database.db.select({ n: count() }).from(engagementEvents);
  const [t] = await database.db
    .select({ n: sql<number>`coalesce(sum(${targets.impressions}), 0)::int` })
    .from(targets);
  return { events: e!.n, counted: t!.n };
}

export async function run(seconds: number) {
  const adminUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'rally-bench-ingest-'));
  let databaseUrl: string | undefined;
  let scratch: string | undefined;
  if (adminUrl) {
    scratch = `rally_bench_${randomBytes(5).toString('hex')}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database ${scratch}`);
    await admin.end();
    const u = new URL(adminUrl);
    u.pathname = `/${scratch}`;
    databaseUrl = u.toString();
  }
  const open = () => openDatabase({ databaseUrl, dataDir });
  let bare: Server | undefined;
  let real: Server | undefined;
  try {
    const setup = await open();
    const tokens = await seed(setup);
    await setup.close();

    bare = await startProcess(path.join(root, 'bench/hello-server.ts'));
    real = await startProcess(path.join(root, 'apps/server/src/main.ts'), {
      DATA_DIR: dataDir,
      SEED_DEMO: 'false',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    });
    // The server prints localhost; the load generator goes straight to the IPv4 loopback it listens on.
    const realUrl = real.url.replace('//localhost:', '//127.0.0.1:');

    // Warm up both (the ad images get rendered and cached here); size the measured runs from it.
    let answered = 0;
    const warm = await impressions(real, realUrl, tokens, 3_000);
    answered += warm.ok;
    await hello(bare, bare.url, 2);
    const amount = Math.max(5_000, Math.round(warm.rps * seconds));

    const runs: Load[] = [];
    const bases: Load[] = [];
    // The ceiling: the same server's /healthz, which does no I/O, so what any route of it can reach.
    const ceilings: Load[] = [];
    for (let i = 0; i < 2; i++) {
      bases.push(await hello(bare, bare.url, seconds));
      const r = await impressions(real, realUrl, tokens, amount);
      answered += r.ok;
      runs.push(r);
      ceilings.push(await hello(real, realUrl, seconds));
    }
    const bad = [warm, ...runs, ...ceilings].reduce((n, r) => n + r.bad, 0);
    const rps = (runs[0]!.rps + runs[1]!.rps) / 2;
    const base = (bases[0]!.rps + bases[1]!.rps) / 2;
    const p99 = Math.max(runs[0]!.p99, runs[1]!.p99);
    const basep99 = Math.max(bases[0]!.p99, bases[1]!.p99);
    const driver = databaseUrl ? 'PostgreSQL' : 'PGlite';
    const ceiling = (ceilings[0]!.rps + ceilings[1]!.rps) / 2;

    await real.stop();
    real = undefined;
    const after = await open();
    const stored = await storedEvents(after);
    const floor = await databaseAlone(after, tokens, seconds);
    await after.close();

    report(
      `ad impression ingest (${driver})`,
      `${Math.round(rps)} req/s`,
      `${Math.round(base)} req/s (bare)`,
      rps / base,
    );
    report(
      `  ceiling: the server's /healthz`,
      `${Math.round(ceiling)} req/s`,
      `${Math.round(base)} req/s (bare)`,
      ceiling / base,
    );
    report(
      `  the database alone`,
      `${Math.round(floor)} events/s`,
      `${Math.round(base)} req/s (bare)`,
      floor / base,
    );
    // Each request needs both the server's HTTP work and the database's; measured alone, each on
    // the whole machine, their costs per request add up: what no code of this design can beat here.
    const bound = 1 / (1 / ceiling + 1 / floor);
    report(
      `  bound: both on 2 cores`,
      `${Math.round(bound)} req/s`,
      `${Math.round(base)} req/s (bare)`,
      bound / base,
    );
    report(
      `  p99 latency (${driver})`,
      `${p99.toFixed(0)} ms`,
      `${basep99.toFixed(0)} ms (bare)`,
      p99 / basep99,
    );
    // Where a request's CPU goes, measured during the runs above: the ratio is, roughly, the bare
    // request's total over the impression's, as the machine's cores are shared by all three.
    console.log(`  CPU per request, impression: ${cpuLine(runs.map((r) => r.cpu))}`);
    console.log(`  CPU per request, /healthz:    ${cpuLine(ceilings.map((r) => r.cpu))}`);
    console.log(`  CPU per request, bare:        ${cpuLine(bases.map((r) => r.cpu))}`);
    const ok = stored.events === answered && stored.counted === answered && bad === 0;
    console.log(
      `  events stored ${stored.events}, target impressions ${stored.counted}, answered 2xx ${answered}, ` +
        `other ${bad}: ${ok ? 'equal' : 'MISMATCH'}`,
    );
    if (!ok) process.exitCode = 1;
  } finally {
    await bare?.stop();
    await real?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    if (adminUrl && scratch) {
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      await admin.query(`drop database if exists ${scratch} with (force)`);
      await admin.end();
    }
  }
}
