import { fork, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../apps/server/src/config/env.ts';
import { clients, integrations } from '../apps/server/src/db/schema/index.ts';
import { createSecretBox } from '../apps/server/src/lib/crypto.ts';
import autocannon from 'autocannon';
import { adminQuery, databaseUrl, dropDatabase } from '../scripts/pg-admin.ts';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export type Server = { child: ChildProcess; url: string; readyMs: number; stop(): Promise<void> };

/**
 * The Node flags `npm start` and `npm run serve` give the server (package.json "serve"), so the
 * embedded mode's benches run the process users run.
 */
export const SERVE_NODE_ARGS: string[] = (
  JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { serve: string } }
).scripts.serve
  .split(/\s+/)
  .filter((arg) => arg.startsWith('--'));

/** Starts a Node process that prints `ready at <url>` and waits for that line. */
export function startProcess(
  script: string,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<Server> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    // BENCH_NODE_ARGS: flags for the servers' Node (say `--cpu-prof --cpu-prof-dir=/tmp/prof`),
    // which NODE_OPTIONS does not accept.
    const flags = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const child = spawn(process.execPath, [...nodeArgs, ...flags, script], {
      cwd: root,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = out.match(/ready at (http:\/\/[^\s]+)/);
      if (m?.[1]) {
        child.stdout?.off('data', onData);
        resolve({
          child,
          url: m[1],
          readyMs: performance.now() - started,
          stop: () =>
            new Promise((r) => {
              child.once('exit', () => r());
              child.kill('SIGTERM');
            }),
        });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}:\n${out}`)));
  });
}

/** CPU seconds (user + system) a process has used so far (Linux, /proc/PID/stat at 100 ticks/s). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * CPU seconds used so far by the PostgreSQL processes on the machine (0 where there is none): with
 * `database`, only those working for it (its backends and autovacuum workers, named after it in
 * their command line) and the WAL writer, so that other work on a shared server is not counted.
 */
export function postgresCpuSeconds(database?: string): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
      if (database) {
        const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
        if (!cmd.includes(` ${database} `) && !cmd.includes('walwriter')) continue;
      }
      total += cpuSeconds(Number(entry));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return total;
}

/** Resident memory of a process in MiB (Linux). */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(status.match(/VmRSS:\s+(\d+) kB/)?.[1] ?? 0);
  return kb / 1024;
}

export async function load(url: string, seconds: number, connections = 50): Promise<number> {
  const result = await autocannon({ url, connections, duration: seconds, pipelining: 1 });
  if (result.non2xx || result.errors)
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

export function report(name: string, figure: string, baseline: string, ratio: number) {
  console.log(
    `${name.padEnd(28)} ${figure.padEnd(28)} baseline ${baseline.padEnd(28)} ratio ${ratio.toFixed(2)}`,
  );
}

/** A scratch database on the PostgreSQL server at `url`, or none (PGlite) when `url` is unset. */
export async function scratchDatabase(url: string): Promise<{ url: string; drop(): Promise<void> }>;
export async function scratchDatabase(
  url: string | undefined,
): Promise<{ url: string | undefined; drop(): Promise<void> }>;
export async function scratchDatabase(url: string | undefined) {
  if (!url) return { url: undefined, drop: async () => {} };
  const name = `rally_bench_${randomBytes(6).toString('hex')}`;
  await adminQuery(url, `create database ${name}`);
  // BENCH_KEEP_DATABASE=1 leaves it in place to be looked at (its name is printed).
  const keep = process.env.BENCH_KEEP_DATABASE === '1';
  if (keep) console.log(`scratch database ${name} (kept: BENCH_KEEP_DATABASE=1)`);
  return {
    url: databaseUrl(url, name),
    drop: () => (keep ? Promise.resolve() : dropDatabase(url, name)),
  };
}

/**
 * A vendor fake in a child process (`bench/<vendor>-server.ts`), driven over IPC: `call(op, arg)`
 * sends an operation and waits for its result. Ready once the child sends message id 0. The fake
 * gets its own process so its CPU is not counted as the app's.
 */
export async function forkFake(script: string, vendor: string, env: Record<string, string>) {
  const child = fork(path.join(root, script), [], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // Not this process's flags (e.g. --input-type when the bench was started with --eval).
    execArgv: [],
  });
  const waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  child.on('message', (m: { id: number; result?: unknown; error?: string }) => {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.error) w?.reject(new Error(`${vendor} fake: ${m.error}`));
    else w?.resolve(m.result);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let seq = 0;
  const call = <T>(op: string, arg?: unknown) =>
    new Promise<T>((resolve, reject) => {
      const id = ++seq;
      waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      child.send({ id, op, arg });
    });
  await new Promise<void>((resolve, reject) => {
    waiting.set(0, { resolve: () => resolve(), reject });
    child.once('exit', (code) => reject(new Error(`the ${vendor} fake exited with ${code}`)));
  });
  return {
    call,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * The app's configuration for a bench: test mode, silent, no demo data, the fixture web build, a
 * fresh secret, on `databaseUrl` (a scratch PostgreSQL database) or in-memory PGlite; `extra` sets
 * a vendor's fake URLs and credentials.
 */
export function benchConfig(databaseUrl: string | undefined, extra: Record<string, string> = {}) {
  return loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: 'memory://',
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
    SEED_DEMO: 'false',
    WEB_DIST: path.join(root, 'apps/server/test/fixtures/web-dist'),
    APP_SECRET: randomBytes(32).toString('hex'),
    ...extra,
  });
}

/**
 * Connects a CRM the way a user does, against its fake: the consent redirect, the code exchanged
 * for credentials, and a new client with the integration holding them (encrypted).
 */
export async function connectCrm(app: FastifyInstance, source: 'hubspot' | 'salesforce') {
  const adapter = app.crmSync.adapters[source]!;
  const redirectUri = 'http://localhost/callback';
  const consent = await fetch(adapter.authorizeUrl!({ state: 'bench', redirectUri }), { redirect: 'manual' });
  const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
  const creds = await adapter.exchangeCode!({ code, redirectUri });
  return { creds, ...(await storeIntegration(app, source, creds)) };
}

/** Connects Marketo as its form does: the API user's client id and secret exchanged for a token. */
export async function connectMarketo(
  app: FastifyInstance,
  fake: { restUrl: string; clientId: string; clientSecret: string },
) {
  const creds = await app.crmSync.adapters.marketo!.connect!({
    kind: 'client_credentials',
    clientId: fake.clientId,
    clientSecret: fake.clientSecret,
    baseUrl: fake.restUrl,
    accessToken: null,
    expiresAt: null,
  });
  return { creds, ...(await storeIntegration(app, 'marketo', creds)) };
}

/** A new client with a CRM integration holding `creds` (encrypted). */
async function storeIntegration(
  app: FastifyInstance,
  source: 'hubspot' | 'salesforce' | 'marketo',
  creds: object,
) {
  const [client] = await app.db.insert(clients).values({ name: 'Bench' }).returning({ id: clients.id });
  const [integration] = await app.db
    .insert(integrations)
    .values({
      clientId: client!.id,
      source,
      credentialsEnc: createSecretBox(app.config.appSecret).encrypt(JSON.stringify(creds)),
    })
    .returning({ id: integrations.id });
  return { clientId: client!.id, integrationId: integration!.id };
}

/** Reads a download as it streams (never whole): seconds, bytes, lines, and the process's peak RSS. */
export async function downloadCsv(url: string, headers: Record<string, string>) {
  // The heap after a full collection, before and once a second during the download: live memory, which
  // RSS (V8 keeps what it once reserved) does not show.
  globalThis.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  let peak = process.memoryUsage().rss;
  let heapPeak = heapBefore;
  let samples = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
    if (globalThis.gc && ++samples % 20 === 0) {
      globalThis.gc();
      heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
    }
  }, 50);
  const started = performance.now();
  const res = await fetch(url, { headers });
  if (res.status !== 200 || !res.body) throw new Error(`export: ${res.status} ${await res.text()}`);
  let bytes = 0;
  let lines = 0;
  for await (const chunk of res.body) {
    bytes += chunk.byteLength;
    for (const b of chunk) if (b === 10) lines++;
  }
  clearInterval(sampler);
  return {
    seconds: (performance.now() - started) / 1000,
    bytes,
    lines,
    peakMiB: peak / 2 ** 20,
    heapGrowthMiB: (heapPeak - heapBefore) / 2 ** 20,
  };
}

/**
 * The ad benches' plain-`fetch` baseline: `items` sent in batches of `size` by `send`, one request at
 * a time, each answer checked; seconds and requests.
 */
export async function timeBatches<T>(
  items: readonly T[],
  size: number,
  send: (batch: T[]) => Promise<Response>,
): Promise<{ seconds: number; requests: number }> {
  const t0 = performance.now();
  let requests = 0;
  for (let i = 0; i < items.length; i += size) {
    const res = await send(items.slice(i, i + size));
    if (!res.ok) throw new Error(`baseline: ${res.status} ${await res.text()}`);
    requests++;
  }
  return { seconds: (performance.now() - t0) / 1000, requests };
}

/** This process's RSS sampled every 100 ms from now; `stop()` ends it and gives the peak in MiB. */
export function sampleRss(): { stop: () => number; liveHeapGrowthMiB: () => number } {
  let peak = process.memoryUsage().rss;
  // The live heap besides RSS: V8 keeps what it once reserved, so RSS alone cannot tell what is held
  // from garbage not yet collected. A full collection every 2 s where the bench runs with --expose-gc.
  globalThis.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  let heapPeak = heapBefore;
  let ticks = 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
    if (globalThis.gc && ++ticks % 20 === 0) {
      globalThis.gc();
      heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
    }
  }, 100);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().rss) / 2 ** 20;
    },
    liveHeapGrowthMiB: () => (heapPeak - heapBefore) / 2 ** 20,
  };
}
