import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { inject, onTestFinished } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import type { BuildOptions } from '../src/app.ts';
import { loadConfig } from '../src/config/env.ts';
import { afterFile } from './cleanups.ts';
import { SNAPSHOT_FILE } from './snapshot.ts';

/**
 * The migrated database's dump as PGlite reads it (it only calls `arrayBuffer()`). Node's own Blob
 * hands its bytes over in 64 KiB pieces joined again: about 1 s for this 48 MB dump, most of a test
 * app's start (1.2 s) and paid by every app of the suite; a copy of the bytes in memory takes 10 ms.
 */
class SnapshotBlob extends Blob {
  readonly #bytes: Uint8Array;
  constructor(bytes: Uint8Array) {
    super([]);
    this.#bytes = bytes;
  }
  override arrayBuffer(): Promise<ArrayBuffer> {
    // A copy each time: PGlite may keep views of what it was given.
    return Promise.resolve(this.#bytes.slice().buffer);
  }
}

let snapshot: Blob | undefined;
function pgliteSnapshot(): Blob | undefined {
  if (TEST_DATABASE_URL || !existsSync(SNAPSHOT_FILE)) return undefined;
  snapshot ??= new SnapshotBlob(readFileSync(SNAPSHOT_FILE));
  return snapshot;
}

export const here = path.dirname(fileURLToPath(import.meta.url));
export const FIXTURE_WEB_DIST = path.join(here, 'fixtures/web-dist');

/** The real PostgreSQL for the second API run (CI sets it); unset means embedded PGlite. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
export const EXPECTED_DRIVER = TEST_DATABASE_URL ? 'postgres' : 'pglite';

/**
 * Runs `fn` when the current test ends, or, outside a test (a describe body or beforeAll), after
 * the file's tests (cleanups.ts, run by setup-file.ts).
 */
function cleanUp(fn: () => Promise<void>): void {
  try {
    onTestFinished(fn);
  } catch {
    // "can only be called inside a test": not in one.
    afterFile(fn);
  }
}

/**
 * A database of its own for one test file: in-memory PGlite, or a new database on the test
 * PostgreSQL server, dropped when the file ends. In the API suite it is a copy of the migrated
 * template (global-setup.ts), so the app's migrations find nothing to do; the multi-process suite's
 * databases start empty.
 */
export async function freshDatabaseUrl(): Promise<string | undefined> {
  if (!TEST_DATABASE_URL) return undefined;
  const name = `rally_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  const template = inject('pgTemplate');
  await admin.query(`create database ${name}${template ? ` template ${template}` : ''}`);
  await admin.end();
  cleanUp(async () => {
    const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await c.connect();
    await c.query(`drop database if exists ${name} with (force)`);
    await c.end();
  });
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export type TestAppOptions = BuildOptions & { env?: Record<string, string | undefined>; ready?: boolean };

/** Builds the real app on a fresh database, closed after the file's tests. */
export async function createTestApp(opts: TestAppOptions = {}): Promise<FastifyInstance> {
  const databaseUrl = await freshDatabaseUrl();
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: 'memory://',
    LOG_LEVEL: 'silent',
    SEED_DEMO: 'false',
    WEB_DIST: FIXTURE_WEB_DIST,
    DATABASE_URL: databaseUrl,
    // The suite's fakes (pictures, SSO issuers, Marketo) listen on loopback; SSRF tests set 'false'.
    ALLOW_PRIVATE_FETCH: 'true',
    // Tests fetch a tag's image and click back to back, as no person does: the burst rule (decision
    // 0017) is off unless a test turns it on (verdicts.test.ts); so is the landing-view rule, as
    // tests click without following the redirect to the landing page.
    TRACKING_BURST_MS: '0',
    TRACKING_LANDING_VIEW_MS: '0',
    // New cadences hold out no one unless a test asks (incrementality tests): a random tenth of a
    // test's targets showing no ad would make every count in the suite a matter of chance.
    HOLDOUT_DEFAULT_PERCENT: '0',
    // Four connections, not production's ten: npm test runs four files at a time beside the other
    // lanes, and at ten a test app's job pollers alone took PostgreSQL past its 100 connections.
    // A request waits for a free connection as in production; a test that needs more sets its own.
    DATABASE_POOL_SIZE: '4',
    // On PostgreSQL an import started by its route runs in a child process that loads the app first
    // (several seconds of CPU per import; fileforce.test.ts took 334 s of the PostgreSQL run at load
    // 20). Test apps import in-process, as on PGlite; the child itself is tested by calling
    // runImportInChild (fileforce.test.ts), and the route's use of it with a SIGKILL midway by the
    // multi-process suite (cluster-import-kill.test.ts), whose servers keep the default.
    IMPORT_CHILD_PROCESS: 'false',
    ...opts.env,
  });
  // A job this app sends wakes its worker at once (lib/queue.ts), so the poll only finds retries and
  // other instances' jobs: every 10 s, not production's 1. Each of the 19 queues polls on its own,
  // for the whole of its file's tests: at 2 s a third of a PGlite file's statements were these
  // fetches (10,540 of 33,521 over a third of the files), and on a loaded CI machine the files run
  // several times longer, so idle apps cost more the slower the run already is. At 10 s: 3,333.
  const app = await buildApp(config, { jobPollingSeconds: 10, pgliteSnapshot: pgliteSnapshot(), ...opts });
  cleanUp(async () => {
    await app.close();
  });
  if (opts.ready !== false) await app.ready();
  return app;
}

export type ReceivedMail = { from: string; to: string[]; raw: string };

/** A real SMTP server on loopback that keeps what it receives. */
export async function startSmtpServer(): Promise<{
  url: string;
  received: ReceivedMail[];
  close(): Promise<void>;
}> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.server.address();
  if (!address || typeof address === 'string') throw new Error('SMTP server has no port');
  return {
    url: `smtp://127.0.0.1:${address.port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Polls until `check` returns a value, or fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 25_000,
): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() - start > timeoutMs) throw new Error(`waitFor: condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until no job of the named queues is queued, retrying or running. */
export async function queuesIdle(app: FastifyInstance, names: string[], timeoutMs = 25_000): Promise<void> {
  await waitFor(async () => {
    for (const name of names) {
      const jobs = await app.queue.boss.findJobs(name);
      if (jobs.some((j) => j.state === 'created' || j.state === 'retry' || j.state === 'active'))
        return false;
    }
    return true;
  }, timeoutMs);
}

/**
 * Sends a job once no job of its queue is queued or running. A queue that runs one job at a time
 * ('exclusive': billing, transitions, attribution) drops a job sent while another is active, and a
 * run asked for at start-up may have read the data before the test wrote it.
 */
export async function sendWhenIdle(app: FastifyInstance, name: string, data: object = {}): Promise<void> {
  await waitFor(async () => {
    const jobs = await app.queue.boss.findJobs(name);
    return !jobs.some((j) => j.state === 'created' || j.state === 'retry' || j.state === 'active');
  });
  await app.queue.send(name, data);
}
