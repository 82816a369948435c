import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { openDatabase } from '../apps/server/src/db/client.ts';
import type { Db } from '../apps/server/src/db/client.ts';
import * as schema from '../apps/server/src/db/schema/index.ts';
import { enqueueEvents, foldQueue, peekVersioned } from '../apps/server/src/modules/tracking/repository.ts';
import { createSuppressionKey } from '../apps/server/src/modules/suppressions/key.ts';
import { SUPER_RULE } from '@rally/shared/schemas/tracking';
import { seed } from './ingest.bench.ts';
import { queuedImpression } from './ingest-mix.ts';

/**
 * One fold of the ingest consumer under auto_explain (analyze, nested statements, triggers), after
 * EXPLAIN_EVENTS (default 1,600: about what the server folds every 200 ms at 8,000 req/s) uniform
 * impressions were appended in batches of 50; EXPLAIN_FOLDS folds in a row (the last printed).
 * Usage: TEST_DATABASE_URL=postgres://… node bench/ingest-explain.ts
 */
const adminUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
if (!adminUrl) throw new Error('set TEST_DATABASE_URL');
const N = Number(process.env.EXPLAIN_EVENTS ?? 1600);
const folds = Number(process.env.EXPLAIN_FOLDS ?? 3);
const scratch = `rally_bench_${randomBytes(5).toString('hex')}`;
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`create database ${scratch}`);
// The server's pools run with JIT off (db/client.ts withoutJit); this script's own client does too unless
// EXPLAIN_JIT=on (a fold compiled by JIT is what PostgreSQL's defaults would do, not what the server does).
if (process.env.EXPLAIN_JIT !== 'on') await admin.query(`alter database ${scratch} set jit = off`);
const explain = process.env.EXPLAIN_PLANS !== 'off';
const u = new URL(adminUrl);
u.pathname = `/${scratch}`;
const dataDir = mkdtempSync(path.join(tmpdir(), 'rally-bench-ingest-explain-'));
try {
  const setup = await openDatabase({ databaseUrl: u.toString(), dataDir });
  const tokens = await seed(setup);
  const key = createSuppressionKey('bench-suppression-key-'.repeat(2));
  const states = (await Promise.all(tokens.map((t) => peekVersioned(setup.db, t, key)))).filter(
    (s) => s !== null,
  );
  let next = 0;
  const client = new pg.Client({ connectionString: u.toString() });
  await client.connect();
  const db = drizzle(client, { schema, casing: 'snake_case' }) as unknown as Db;
  let last = '';
  client.on('notice', (m) => (last += `${m.message}\n`));
  for (let f = 0; f < folds; f++) {
    for (let n = 0; n < N; n += 50) {
      const at = new Date().toISOString();
      const items = Array.from({ length: Math.min(50, N - n) }, (_, ord) =>
        queuedImpression(states[next++ % states.length]!, ord, at),
      );
      await enqueueEvents(setup.db, items);
    }
    if (explain) await client.query(`load 'auto_explain'`);
    if (explain)
      await client.query(`set auto_explain.log_min_duration = 0; set auto_explain.log_analyze = on;
      set auto_explain.log_nested_statements = on; set auto_explain.log_triggers = on; set auto_explain.log_buffers = on;
      set client_min_messages = log`);
    last = '';
    const t0 = performance.now();
    const { taken } = await foldQueue(db, 5000, SUPER_RULE, 2000, 15000);
    const ms = performance.now() - t0;
    if (explain)
      await client.query(`set client_min_messages = notice; set auto_explain.log_min_duration = -1`);
    console.log(`fold ${f}: ${taken} events in ${ms.toFixed(1)} ms`);
  }
  console.log(last);
  await client.end();
  await setup.close();
} finally {
  rmSync(dataDir, { recursive: true, force: true });
  await admin.query(`drop database if exists ${scratch} with (force)`);
  await admin.end();
}
