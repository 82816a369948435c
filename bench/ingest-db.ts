import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from '../apps/server/src/db/client.ts';
import { databaseAlone, seed } from './ingest.bench.ts';
import { postgresCpuSeconds } from './lib.ts';

/**
 * The ingest bench's "database alone" by itself (issue 43): the uniform case's seed, the request
 * path's appends and the consumer for `BENCH_SECONDS` (default 20), on a scratch PostgreSQL
 * database; prints events/s, PostgreSQL's CPU µs per event, and where it went by the statistics
 * collector (trigger functions' time with track_functions = all; rows written per table).
 * Usage: TEST_DATABASE_URL=postgres://… node bench/ingest-db.ts
 */
const adminUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
if (!adminUrl) throw new Error('set TEST_DATABASE_URL');
const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const scratch = `rally_bench_${randomBytes(5).toString('hex')}`;
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`create database ${scratch}`);
await admin.query(`alter database ${scratch} set track_functions = 'all'`);
const u = new URL(adminUrl);
u.pathname = `/${scratch}`;
const dataDir = mkdtempSync(path.join(tmpdir(), 'rally-bench-ingest-db-'));
try {
  const setup = await openDatabase({ databaseUrl: u.toString(), dataDir });
  const tokens = await seed(setup);
  // An experiment's statements before the load (INGEST_DB_SQL), e.g. a table's fillfactor.
  if (process.env.INGEST_DB_SQL) await setup.execute(process.env.INGEST_DB_SQL);
  await setup.close();
  const database = await openDatabase({ databaseUrl: u.toString(), dataDir });
  const probe = new pg.Client({ connectionString: u.toString() });
  await probe.connect();
  const fns0 = await functionTimes(probe);
  const tabs0 = await tableWrites(probe);
  const cpu0 = postgresCpuSeconds(scratch);
  const t0 = performance.now();
  const rate = await databaseAlone(database, tokens, seconds);
  const wall = (performance.now() - t0) / 1000;
  const cpu = postgresCpuSeconds(scratch) - cpu0;
  // The collector publishes a backend's counts when it goes idle; close the pool first.
  await database.close();
  await new Promise((r) => setTimeout(r, 1500));
  const fns = await functionTimes(probe);
  const tabs = await tableWrites(probe);
  const events = rate * wall;
  console.log(
    `database alone: ${Math.round(rate)} events/s, PostgreSQL ${((cpu / events) * 1e6).toFixed(1)} µs CPU per event (${events.toFixed(0)} events, ${wall.toFixed(1)} s)`,
  );
  console.log('functions (µs per event, total / self, calls):');
  const rows = [...fns.entries()]
    .map(([name, f]) => {
      const before = fns0.get(name) ?? { calls: 0, total: 0, self: 0 };
      return {
        name,
        calls: f.calls - before.calls,
        total: f.total - before.total,
        self: f.self - before.self,
      };
    })
    .filter((f) => f.calls > 0)
    .sort((a, b) => b.total - a.total);
  for (const f of rows.slice(0, 30))
    console.log(
      `  ${f.name.padEnd(48)} ${((f.total * 1000) / events).toFixed(1).padStart(7)} / ${((f.self * 1000) / events).toFixed(1).padStart(7)}  ${f.calls}`,
    );
  console.log('rows written per event (ins / upd / del / hot upd):');
  for (const [name, t] of tabs) {
    const b = tabs0.get(name) ?? [0, 0, 0, 0];
    const d = t.map((x, i) => x - b[i]!);
    if (d.every((x) => x === 0)) continue;
    console.log(`  ${name.padEnd(48)} ${d.map((x) => (x / events).toFixed(2)).join(' / ')}`);
  }
  await probe.end();
} finally {
  rmSync(dataDir, { recursive: true, force: true });
  await admin.query(`drop database if exists ${scratch} with (force)`);
  await admin.end();
}

async function functionTimes(c: pg.Client) {
  await c.query('select pg_stat_clear_snapshot()');
  const { rows } = await c.query<{ name: string; calls: string; total: number; self: number }>(
    `select schemaname || '.' || funcname as name, calls, total_time as total, self_time as self from pg_stat_user_functions`,
  );
  return new Map(rows.map((r) => [r.name, { calls: Number(r.calls), total: r.total, self: r.self }]));
}

async function tableWrites(c: pg.Client) {
  const { rows } = await c.query<{ name: string; i: string; u: string; d: string; h: string }>(
    `select relname as name, n_tup_ins as i, n_tup_upd as u, n_tup_del as d, n_tup_hot_upd as h from pg_stat_user_tables order by relname`,
  );
  return new Map(rows.map((r) => [r.name, [Number(r.i), Number(r.u), Number(r.d), Number(r.h)]]));
}
