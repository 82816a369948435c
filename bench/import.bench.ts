import {
  createReadStream,
  createWriteStream,
  mkdtempSync,
  openAsBlob,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { buildApp } from '../apps/server/src/app.ts';
import { loadConfig } from '../apps/server/src/config/env.ts';
import { count, eq, sql } from 'drizzle-orm';
import { clients, integrations, targets } from '../apps/server/src/db/schema/index.ts';
import { importCsvFile, runImportInChild } from '../apps/server/src/modules/fileforce/index.ts';
import { cpuSeconds, report, root, scratchDatabase } from './lib.ts';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The file import (issue 6 "Figures", issue 19): a generated targets CSV imported through the
 * product's own code (importCsvFile: the upload's storage, the import job's runImport, in a child
 * process on PostgreSQL as the job runs it), rows per second, peak RSS of the importing process, and
 * the API's `/healthz` p99 during the import beside its idle p99, against a plain PostgreSQL `COPY ... FROM STDIN` of the same file into a
 * staging table without indexes, in the same database and the same run. Real PostgreSQL when
 * BENCH_DATABASE_URL or TEST_DATABASE_URL is set (a scratch database is created and dropped), else
 * embedded PGlite in a temporary data folder. Aims (issue 19): 1,000,000 rows under 120 s on
 * PostgreSQL, peak RSS of the importing process < 400 MB.
 */

const HEADER =
  'Email,First Name,Last Name,Title,Company,Website,Cadence,Day,Rep Email,Rep First Name,Rep Last Name';
const TITLES = ['VP Operations', 'Head of Logistics', 'Procurement Lead', 'COO', ''];
const CADENCES = ['Q3 Outbound', 'Q3 Inbound follow-up', 'Enterprise push', 'Re-engage'];
const COMPANIES = 20_000;
const REPS = 40;

/** Row `i` of the file: a unique prospect, one of a few cadences, days and reps. */
function line(i: number): string {
  const c = i % COMPANIES;
  const r = i % REPS;
  return [
    `prospect${i}@company${c}.example`,
    `First${i}`,
    `Last${i}`,
    TITLES[i % TITLES.length],
    `Company ${c}`,
    `https://www.company${c}.example`,
    CADENCES[i % CADENCES.length],
    1 + (i % 9),
    `rep${r}@vendor.example`,
    `Rep${r}`,
    `Seller${r}`,
  ].join(',');
}

/** Writes the CSV a slice at a time, waiting for the disk: never the whole file in memory. */
async function writeCsv(filePath: string, rows: number): Promise<void> {
  const out = createWriteStream(filePath);
  out.write(`${HEADER}\n`);
  for (let i = 0; i < rows; i += 5000) {
    const slice: string[] = [];
    for (let j = i; j < Math.min(rows, i + 5000); j++) slice.push(line(j));
    if (!out.write(`${slice.join('\n')}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** Peak RSS while `work` runs, sampled every 100 ms, and the kernel's high-water mark as a check. */
async function withPeakRss<T>(
  work: () => Promise<T>,
): Promise<{ value: T; peakMiB: number; hwmMiB: number | null }> {
  // Writing 5 resets VmHWM (Linux), so it measures this window only; unsupported elsewhere.
  const hwmReset = await writeFile('/proc/self/clear_refs', '5').then(
    () => true,
    () => false,
  );
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 100);
  try {
    const value = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    const hwmKb = hwmReset
      ? Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN)
      : NaN;
    return { value, peakMiB: peak / 2 ** 20, hwmMiB: Number.isFinite(hwmKb) ? hwmKb / 1024 : null };
  } finally {
    clearInterval(timer);
  }
}

type ProbeFigures = { requests: number; failures: number; p50: number; p99: number; max: number };

/** Starts the `/healthz` probe (healthz-probe.ts, a child process) against `url`; `stop` gives its figures. */
function startProbe(url: string): { stop(): Promise<ProbeFigures> } {
  const probe = fork(fileURLToPath(new URL('./healthz-probe.ts', import.meta.url)), [url, '20'], {
    execArgv: [],
  });
  const figures = new Promise<ProbeFigures>((resolve, reject) => {
    probe.once('message', (m) => resolve(m as ProbeFigures));
    probe.once('exit', (code) => reject(new Error(`the /healthz probe exited (${code})`)));
  });
  return {
    stop() {
      probe.send('stop');
      return figures;
    },
  };
}

const probeLine = (f: ProbeFigures) =>
  `p99 ${f.p99.toFixed(1)} ms (p50 ${f.p50.toFixed(1)}, max ${f.max.toFixed(0)}, ${f.requests} requests${f.failures ? `, ${f.failures} failed` : ''})`;

/** The resident memory of process `pid` now (VmRSS), in bytes, or 0 once it is gone. */
function rssOf(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * CPU seconds the PostgreSQL processes working for `database` (its backends, named after it in their
 * command line, and the WAL writer) use from now until `stop`, sampled every 200 ms so that a backend
 * that ends meanwhile (the importing child's) still counts up to its last sample.
 */
function postgresCpuFrom(database: string): { stop(): number } {
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  const sample = (initial: boolean) => {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const pid = Number(entry);
      try {
        if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
        const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        if (!cmd.includes(` ${database} `) && !cmd.includes('walwriter')) continue;
        const cpu = cpuSeconds(pid);
        if (initial || !first.has(pid)) first.set(pid, initial ? cpu : 0);
        last.set(pid, cpu);
      } catch {
        // The process ended between the listing and the read.
      }
    }
  };
  sample(true);
  const timer = setInterval(() => sample(false), 200);
  return {
    stop() {
      clearInterval(timer);
      sample(false);
      let total = 0;
      for (const [pid, cpu] of last) total += cpu - (first.get(pid) ?? 0);
      return total;
    },
  };
}

const STAGING = `create table bench_copy_staging (
  email text, first_name text, last_name text, title text, company text, website text,
  cadence text, day text, rep_email text, rep_first_name text, rep_last_name text)`;

/** The baseline: `COPY FROM STDIN` of the file into a plain table; returns the rows copied. */
async function copyPostgres(url: string, filePath: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(STAGING);
    const copy = c.query(copyFrom('copy bench_copy_staging from stdin with (format csv, header true)'));
    await pipeline(createReadStream(filePath, { highWaterMark: 256 * 1024 }), copy);
    return Number(copy.rowCount);
  } finally {
    await c.end();
  }
}

async function copyPglite(db: PGlite, filePath: string): Promise<number> {
  await db.exec(STAGING);
  const r = await db.query("copy bench_copy_staging from '/dev/blob' with (format csv, header true)", [], {
    blob: await openAsBlob(filePath),
  });
  return r.affectedRows ?? 0;
}

/**
 * The floor of any import into these tables: the rows the COPY staged, written by plain set-based SQL
 * (INSERT … SELECT, no per-row work, no validation, no batches) into the product's own companies,
 * prospects, cadence days and targets, with their indexes and foreign keys, under a fresh client.
 * It shows how much of COPY's rate the tables themselves allow, whatever the import's code does.
 */
const FLOOR_SQL = (client: string, integration: number) => {
  const c = `'${client}'::uuid`;
  return [
    `insert into sales_reps (client_id, integration_id, external_id, email, first_name, last_name)
     select distinct on (lower(rep_email)) ${c}, ${integration}, lower(rep_email), lower(rep_email), rep_first_name, rep_last_name
     from bench_copy_staging order by lower(rep_email)`,
    `insert into cadences (client_id, integration_id, external_id, name)
     select distinct on (lower(cadence)) ${c}, ${integration}, lower(cadence), cadence
     from bench_copy_staging order by lower(cadence)`,
    `insert into companies (client_id, integration_id, external_id, name, website)
     select distinct on (lower(company)) ${c}, ${integration}, lower(company), company, website
     from bench_copy_staging order by lower(company)`,
    `insert into prospects (client_id, integration_id, external_id, email, first_name, last_name, title, company_id)
     select ${c}, ${integration}, lower(s.email), lower(s.email), s.first_name, s.last_name, coalesce(s.title, ''), co.id
     from bench_copy_staging s
     left join companies co on co.integration_id = ${integration} and co.external_id = lower(s.company)`,
    `insert into cadence_days (client_id, cadence_id, day_number)
     select distinct ${c}, ca.id, s.day::int from bench_copy_staging s
     join cadences ca on ca.integration_id = ${integration} and ca.external_id = lower(s.cadence)`,
    `insert into targets (client_id, cadence_id, prospect_id, sales_rep_id, day_number, token)
     select ${c}, ca.id, p.id, r.id, s.day::int, md5(random()::text || s.email)
     from bench_copy_staging s
     join cadences ca on ca.integration_id = ${integration} and ca.external_id = lower(s.cadence)
     join prospects p on p.integration_id = ${integration} and p.external_id = lower(s.email)
     left join sales_reps r on r.integration_id = ${integration} and r.external_id = lower(s.rep_email)`,
  ];
};

async function floorRun(app: Awaited<ReturnType<typeof buildApp>>): Promise<number> {
  const [client] = await app.db.insert(clients).values({ name: 'Bench floor' }).returning({ id: clients.id });
  const [integration] = await app.db
    .insert(integrations)
    .values({ clientId: client!.id, source: 'fileforce' })
    .returning({ id: integrations.id });
  await app.db.transaction(async (tx) => {
    for (const statement of FLOOR_SQL(client!.id, integration!.id)) await tx.execute(sql.raw(statement));
  });
  const [row] = await app.db.select({ n: count() }).from(targets).where(eq(targets.clientId, client!.id));
  return row!.n;
}

export async function run(opts: { rows?: number; floor?: boolean } = {}) {
  const rows = opts.rows ?? 1_000_000;
  const adminUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
  const dir = mkdtempSync(path.join(tmpdir(), 'rally-bench-import-'));
  const csv = path.join(dir, 'targets.csv');
  const scratch = adminUrl ? await scratchDatabase(adminUrl) : null;
  try {
    await writeCsv(csv, rows);
    const mb = statSync(csv).size / 2 ** 20;
    const config = loadConfig({
      DATA_DIR: path.join(dir, 'data'),
      DATABASE_URL: scratch?.url,
      LOG_LEVEL: 'warn',
      SEED_DEMO: 'false',
      WEB_DIST: path.join(root, 'apps/server/test/fixtures/web-dist'),
      // PGlite only: compares its shared buffers' cost on a table larger than they are.
      PGLITE_SHARED_BUFFERS_MB: process.env.PGLITE_SHARED_BUFFERS_MB,
    });
    // No workers: nothing else runs in the process while it is measured.
    const app = await buildApp(config, { workers: false });
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const engine = scratch ? 'PostgreSQL' : 'PGlite';
      const inChild = !!scratch && config.importChildProcess;
      console.log(
        `import: ${rows} rows, ${mb.toFixed(0)} MB CSV, ${engine}, ${inChild ? 'in a child process (as the import job runs it)' : 'in process'}`,
      );

      // The API's /healthz while nothing runs, then while the import runs (the probe is a process
      // of its own; the API is this process, listening on loopback).
      const idleSeconds = Number(process.env.BENCH_IMPORT_IDLE_SECONDS ?? 10);
      const idleProbe = startProbe(`${address}/healthz`);
      await new Promise((r) => setTimeout(r, idleSeconds * 1000));
      const idle = await idleProbe.stop();

      // The import first: PGlite's memory grows with what it is given and never shrinks, so a COPY
      // run before it would count in the import's peak.
      const [client] = await app.db.insert(clients).values({ name: 'Bench' }).returning({ id: clients.id });
      const rssBefore = process.memoryUsage().rss / 2 ** 20;
      let childPeak = 0;
      let childCpu = 0;
      let childSampled = 0;
      let childPid = 0;
      let sampler: NodeJS.Timeout | undefined;
      const busyProbe = startProbe(`${address}/healthz`);
      const pgCpu = scratch ? postgresCpuFrom(new URL(scratch.url).pathname.slice(1)) : null;
      let t = performance.now();
      const {
        value: done,
        peakMiB,
        hwmMiB,
      } = await withPeakRss(() =>
        importCsvFile(app, {
          clientId: client!.id,
          kind: 'targets',
          filePath: csv,
          ...(inChild
            ? {
                run: async (id: string) => {
                  const ran = await runImportInChild(app, scratch!.url, id, {
                    onSpawn: (pid) => {
                      childPid = pid;
                      sampler = setInterval(() => {
                        childSampled = Math.max(childSampled, rssOf(pid));
                      }, 100);
                    },
                  });
                  clearInterval(sampler);
                  childPeak = ran.peakRssBytes;
                  childCpu = ran.cpuMicros / 1e6;
                  return ran.row;
                },
              }
            : {}),
        }),
      );
      const importSeconds = (performance.now() - t) / 1000;
      const postgresCpu = pgCpu?.stop() ?? null;
      clearInterval(sampler);
      const busy = await busyProbe.stop();
      if (done.status !== 'done' || done.imported_rows !== rows) {
        throw new Error(
          `import ended ${done.status} with ${done.imported_rows} of ${rows} rows: ${done.failure_reason ?? JSON.stringify(done.errors.slice(0, 3))}`,
        );
      }

      t = performance.now();
      const copied = scratch
        ? await copyPostgres(scratch.url, csv)
        : await copyPglite((app.db as unknown as { $client: PGlite }).$client, csv);
      const copySeconds = (performance.now() - t) / 1000;
      if (copied !== rows) throw new Error(`COPY loaded ${copied} rows, expected ${rows}`);

      const importRate = rows / importSeconds;
      const copyRate = rows / copySeconds;
      report(
        `file import (${engine})`,
        `${Math.round(importRate)} rows/s (${importSeconds.toFixed(1)} s)`,
        `${Math.round(copyRate)} rows/s COPY (${copySeconds.toFixed(1)} s)`,
        importRate / copyRate,
      );
      if (opts.floor !== false && process.env.BENCH_IMPORT_FLOOR !== '0') {
        t = performance.now();
        const written = await floorRun(app);
        const floorSeconds = (performance.now() - t) / 1000;
        if (written !== rows)
          throw new Error(`the set-based floor wrote ${written} targets, expected ${rows}`);
        report(
          `  set-based SQL floor`,
          `${Math.round(rows / floorSeconds)} rows/s (${floorSeconds.toFixed(1)} s)`,
          `${Math.round(copyRate)} rows/s COPY`,
          copySeconds / floorSeconds,
        );
      }
      const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
      if (inChild) {
        console.log(
          `import peak RSS              ${mib(childPeak)} MB, the importing child process ${childPid} (kernel high-water mark; ${mib(childSampled)} MB sampled every 100 ms); aim < 400 MB`,
        );
        console.log(
          `  importing process CPU      ${childCpu.toFixed(1)} s of the import's ${importSeconds.toFixed(1)} s`,
        );
        console.log(
          `  API process peak RSS       ${peakMiB.toFixed(0)} MB (sampled)${hwmMiB === null ? '' : `, ${hwmMiB.toFixed(0)} MB (high-water mark)`}; ${rssBefore.toFixed(0)} MB just before`,
        );
      } else {
        console.log(
          `import peak RSS              ${peakMiB.toFixed(0)} MB (sampled every 100 ms)${hwmMiB === null ? '' : `, ${hwmMiB.toFixed(0)} MB (kernel high-water mark)`}; ${rssBefore.toFixed(0)} MB just before; aim < 400 MB`,
        );
      }
      if (postgresCpu !== null) {
        console.log(
          `  PostgreSQL CPU             ${postgresCpu.toFixed(1)} s (the scratch database's backends and the WAL writer)`,
        );
      }
      console.log(`/healthz during the import  ${probeLine(busy)}`);
      console.log(`/healthz idle, just before  ${probeLine(idle)}`);
    } finally {
      await app.close();
    }
  } finally {
    await scratch?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
