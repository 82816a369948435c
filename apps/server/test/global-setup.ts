import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../src/db/client.ts';
import { JobQueue } from '../src/lib/queue.ts';
import { SNAPSHOT_FILE } from './snapshot.ts';

declare module 'vitest' {
  // Vitest's provide/inject keys are declared by merging into its interface, which a type cannot do.
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  export interface ProvidedContext {
    /** A migrated PostgreSQL database that test/helpers.ts copies for each test file (server project). */
    pgTemplate: string | undefined;
  }
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const src = path.join(path.dirname(fileURLToPath(import.meta.url)), '../src');

/**
 * Builds one migrated database (with the job queue's schema) that each test file's database starts
 * from: a dump for PGlite (half a second instead of initdb and migrations), a template database on
 * PostgreSQL (`create database … template`: 0.4–0.8 s instead of 8 s of migrations on this
 * machine, each file of the PostgreSQL run paid it). The migrations themselves still run on
 * PostgreSQL once here, and from an empty database in every server of the multi-process suite,
 * which gets no template (its cluster tests start instances that migrate together).
 */
export default async function setup(project: TestProject): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    project.provide('pgTemplate', project.name === 'server' ? await postgresTemplate(url) : undefined);
    return;
  }
  project.provide('pgTemplate', undefined);
  const database = await openDatabase({ dataDir: 'memory://' });
  const queue = new JobQueue(database.execute, silent as never);
  await queue.start({ workers: false });
  await queue.stop();
  const dump = await database.snapshot!();
  await database.close();
  mkdirSync(path.dirname(SNAPSHOT_FILE), { recursive: true });
  writeFileSync(SNAPSHOT_FILE, Buffer.from(await dump.arrayBuffer()));
}

/**
 * The template's name carries a hash of the migrations and the queue's code, so a run reuses a
 * template built by an earlier run (or by another worktree on the same server) only when they would
 * build the same database; an advisory lock keeps two runs from building it at once. Nobody may
 * stay connected to a template (PostgreSQL refuses to copy it then): it is built under another
 * name and renamed when done.
 */
async function postgresTemplate(url: string): Promise<string> {
  const hash = createHash('sha256');
  const migrations = path.join(src, 'db/migrations');
  for (const file of readdirSync(migrations, { recursive: true, encoding: 'utf8' }).sort()) {
    if (file.endsWith('.sql') || file.endsWith('.json'))
      hash.update(file).update(readFileSync(path.join(migrations, file)));
  }
  hash.update(readFileSync(path.join(src, 'lib/queue.ts')));
  const name = `rally_tpl_${hash.digest('hex').slice(0, 16)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query('select pg_advisory_lock(727101)');
    const exists = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (exists.rowCount) return name;
    const building = `${name}_building`;
    await admin.query(`drop database if exists ${building} with (force)`);
    await admin.query(`create database ${building}`);
    const target = new URL(url);
    target.pathname = `/${building}`;
    const database = await openDatabase({
      databaseUrl: target.toString(),
      dataDir: 'memory://',
      poolSize: 2,
    });
    try {
      const queue = new JobQueue(database.execute, silent as never);
      await queue.start({ workers: false });
      await queue.stop();
    } finally {
      await database.close();
    }
    await admin.query(`alter database ${building} rename to ${name}`);
    return name;
  } finally {
    await admin.query('select pg_advisory_unlock(727101)').catch(() => {});
    await admin.end();
  }
}
