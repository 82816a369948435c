import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { PGLITE_SHARED_BUFFERS_MB_DEFAULT } from '../config/env.ts';
import * as schema from './schema/index.ts';

export type Schema = typeof schema;
/** The Drizzle database, whichever driver is underneath. Repositories take this type. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type DbDriver = 'pglite' | 'postgres';

/** A minimal SQL port used by infrastructure that speaks raw SQL (the job queue). */
export type SqlExecutor = (
  text: string,
  values?: unknown[],
) => Promise<{ rows: unknown[]; rowCount: number }>;

export type Database = {
  db: Db;
  driver: DbDriver;
  execute: SqlExecutor;
  ping(): Promise<void>;
  /**
   * Runs `fn` while holding the session advisory lock `key` on PostgreSQL, so that instances
   * starting together on one database take turns (the demo seed, the job queue's schema). PGlite
   * belongs to one process: `fn` just runs.
   */
  withLock<T>(key: number, fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** A dump of the embedded database (PGlite only), e.g. to start test databases quickly. */
  snapshot?(): Promise<Blob>;
};

const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
/**
 * Advisory locks that serialise start-up work when several instances start at once against one
 * PostgreSQL: migrations, the job queue's schema and queues, the demo seed.
 */
const MIGRATION_LOCK = 727_001;
export const QUEUE_START_LOCK = 727_003;
export const DEMO_SEED_LOCK = 727_004;

export type DatabaseOptions = {
  databaseUrl?: string | undefined;
  dataDir: string;
  poolSize?: number;
  /** Start an in-memory PGlite from a dump (`dumpDataDir`) instead of an empty cluster. */
  pgliteSnapshot?: Blob | undefined;
  /** PGlite's `shared_buffers` in MiB (PGLITE_SHARED_BUFFERS_MB). */
  pgliteSharedBuffersMb?: number | undefined;
};

/** Opens the database (PostgreSQL when a URL is given, else embedded PGlite) and applies migrations. */
export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  return opts.databaseUrl
    ? openPostgres(opts.databaseUrl, opts.poolSize ?? 10)
    : openPglite(
        opts.dataDir,
        opts.pgliteSnapshot,
        opts.pgliteSharedBuffersMb ?? PGLITE_SHARED_BUFFERS_MB_DEFAULT,
      );
}

async function openPglite(
  dataDir: string,
  snapshot: Blob | undefined,
  sharedBuffersMb: number,
): Promise<Database> {
  let dir: string | undefined;
  if (dataDir !== 'memory://') {
    dir = path.join(dataDir, 'db');
    mkdirSync(dir, { recursive: true });
  }
  if (snapshot && dir) throw new Error('A PGlite snapshot can only seed an in-memory database');
  // pg_trgm backs the prospects search index (migration 0004); PGlite ships it as a contrib module.
  // Passed on the command line (not postgresql.conf) so the data folder is not rewritten and the
  // setting follows the configuration at every start. Shared buffers are zeroed at start-up in
  // PGlite's WebAssembly memory, which never shrinks: PostgreSQL's 128 MB was all resident.
  const client = await PGlite.create({
    dataDir: dir,
    loadDataDir: snapshot,
    extensions: { pg_trgm },
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffersMb}MB`],
  });
  yieldBeforeEachCall(client);
  const db = drizzlePglite(client, { schema, casing: 'snake_case' });
  await migratePglite(db, { migrationsFolder });
  return {
    db: db as unknown as Db,
    driver: 'pglite',
    // PGlite's extended protocol takes one statement; parameterless scripts go through exec().
    async execute(text, values = []) {
      if (values.length === 0) {
        const results = await client.exec(text);
        const last = results.at(-1);
        return { rows: last?.rows ?? [], rowCount: last?.affectedRows ?? last?.rows.length ?? 0 };
      }
      const r = await client.query(text, values);
      return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
    },
    async ping() {
      await client.query('select 1');
    },
    withLock: (_key, fn) => fn(),
    async snapshot() {
      return client.dumpDataDir('none');
    },
    async close() {
      if (!client.closed) await client.close();
    },
  };
}

/**
 * PGlite runs each statement synchronously in WebAssembly and resolves its promise at once, so a
 * job looping over chunks (a cohort sync, an import, a journey run) would chain microtasks and never
 * let the event loop read a socket: every request waited for the whole job. Each call first yields
 * to the event loop, so requests arriving meanwhile get their turn between the job's statements.
 */
function yieldBeforeEachCall(client: PGlite): void {
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  const query = client.query.bind(client);
  const exec = client.exec.bind(client);
  const transaction = client.transaction.bind(client);
  client.query = (async (...args: Parameters<PGlite['query']>) => {
    await turn();
    return query(...args);
  }) as PGlite['query'];
  client.exec = async (...args) => {
    await turn();
    return exec(...args);
  };
  client.transaction = async (...args) => {
    await turn();
    return transaction(...args);
  };
}

/**
 * The URL with `jit=off` added to its session options (the URL's own `options` still win). The
 * reports' attribution plans are costed high (a lateral per opportunity) though they run in
 * milliseconds, and PostgreSQL spent seconds compiling each one (bench/reports.bench.ts).
 */
function withoutJit(url: string): string {
  const u = new URL(url);
  u.searchParams.set('options', ['-c jit=off', u.searchParams.get('options')].filter(Boolean).join(' '));
  return u.toString();
}

async function openPostgres(url: string, max: number): Promise<Database> {
  const database = connectPostgres(url, max);
  await database.withLock(MIGRATION_LOCK, () =>
    migratePg(database.db as unknown as Parameters<typeof migratePg>[0], { migrationsFolder }),
  );
  return database;
}

/**
 * A pool on a PostgreSQL database whose migrations another process has applied (a worker process
 * that the server started, e.g. a file import's): nothing is checked or run at connection.
 */
export function connectPostgres(url: string, max: number): Database & { pool: pg.Pool } {
  const pool = new pg.Pool({ connectionString: withoutJit(url), max });
  // An idle client that errors (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const db = drizzlePg(pool, { schema, casing: 'snake_case' });
  return {
    pool,
    db: db as unknown as Db,
    driver: 'postgres',
    async execute(text, values = []) {
      const r = await pool.query(text, values);
      // A multi-statement script returns one result per statement; the last one is the answer.
      const last = Array.isArray(r) ? (r.at(-1) as pg.QueryResult) : r;
      return { rows: last.rows, rowCount: last.rowCount ?? last.rows.length };
    },
    async ping() {
      await db.execute(sql`select 1`);
    },
    async withLock(key, fn) {
      // A connection of its own holds the lock while `fn` uses the rest of the pool.
      const lock = await pool.connect();
      try {
        await lock.query('select pg_advisory_lock($1)', [key]);
        return await fn();
      } finally {
        await lock.query('select pg_advisory_unlock($1)', [key]).catch(() => {});
        lock.release();
      }
    },
    async close() {
      // Twice is harmless, as on PGlite (pg-pool throws on a second end).
      if (!pool.ending) await pool.end();
    },
  };
}
