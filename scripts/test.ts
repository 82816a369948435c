/**
 * `npm test`: types, lint, unit, API (PGlite, then PostgreSQL when TEST_DATABASE_URL is set), the
 * multi-process suite (when PostgreSQL and Redis are there) and end-to-end tests in Debian's
 * Chromium. Ends with one line `N passed, N failed` summing every suite.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { JSONReport, JSONReportSuite } from '@playwright/test/reporter';
import type { JsonTestResults } from 'vitest/reporters';
import { freePort } from '../apps/server/test/free-port.ts';
import { adminQuery, databaseUrl, dropDatabase } from './pg-admin.ts';
import {
  banner,
  bin,
  CHROMIUM,
  CHROMIUM_FULL,
  cpuMeter,
  firstLine,
  niced,
  node,
  root,
  slowest,
  stripAnsi,
  tmp,
} from './test-lib.ts';
import type { Outcome } from './test-lib.ts';

const outcomes: Outcome[] = [];

/**
 * Runs a command with its output printed live; resolves with its exit code and its last lines (kept so
 * a run that fails before any test, such as a global setup whose server never started, can say why in
 * the summary at the end: a CI log keeps only its tail).
 */
function run(
  cmd: string,
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ code: number; tail: string[]; cpu?: number }> {
  const meter = cpuMeter(cmd, args);
  return new Promise((resolve) => {
    const child = spawn(meter.cmd, meter.args, {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let tail: string[] = [];
    const keep = (stream: NodeJS.WriteStream) => (c: Buffer) => {
      stream.write(c);
      tail = [...tail, ...(stripAnsi(c.toString()) ?? '').split('\n')]
        .filter((l) => l.trim())
        .map((l) => l.slice(0, 300))
        .slice(-40);
    };
    child.stdout.on('data', keep(process.stdout));
    child.stderr.on('data', keep(process.stderr));
    child.once('error', (err) => resolve({ code: 1, tail: [String(err)] }));
    child.once('close', (code) => resolve({ code: code ?? 1, tail, cpu: meter.read() }));
  });
}

/**
 * A check without test cases (types, lint, format): one pass or one failure. Checks run side by
 * side (each is one single-threaded process, and the machine has two cores); each one's output is
 * printed whole when it ends, so the logs do not interleave.
 */
function check(name: string, cmd: string, args: string[], keepPriority = false): Promise<Outcome> {
  const t = Date.now();
  const meter = cpuMeter(...niced(cmd, args, keepPriority));
  return new Promise((resolve) => {
    const child = spawn(meter.cmd, meter.args, {
      cwd: root,
      env: { ...process.env, FORCE_COLOR: '1' },
    });
    const out: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => out.push(c));
    const done = (ok: boolean) => {
      banner(name);
      process.stdout.write(Buffer.concat(out));
      const seconds = (Date.now() - t) / 1000;
      resolve({ name, passed: ok ? 1 : 0, failed: ok ? 0 : 1, seconds, cpu: meter.read() });
    };
    child.once('error', (err) => {
      out.push(Buffer.from(`${String(err)}\n`));
      done(false);
    });
    child.once('close', (code) => done(code === 0));
  });
}

/**
 * A Vitest lane. The files where a test failed run once more when the lane ends (at most twenty files:
 * more is a breakage, not chance), as the end-to-end run retries a failed test: on two cores beside four
 * other lanes at load 13-20 a test that waits on time can run out of it (the CI run of 2026-12-07 failed
 * on two such; a CI-like run that day had eleven tests in seven files of the PGlite run out of time). A
 * failure that passes the second time counts as passed and is listed as flaky in the summary; one that
 * fails again counts as failed, with both runs' messages.
 */
async function vitest(
  name: string,
  projects: string[],
  env: Record<string, string | undefined> = {},
  exclude: string[] = [],
  extra: string[] = [],
  keepPriority = false,
): Promise<Outcome> {
  const first = await vitestRun(name, projects, env, exclude, extra, keepPriority);
  if (first.failed === 0 || first.failedFiles.length === 0 || first.failedFiles.length > 20) return first;
  const again = await vitestRun(
    `${name}: the files that failed, once more`,
    projects,
    env,
    exclude,
    [...extra, ...first.failedFiles],
    keepPriority,
  );
  const outcome = { ...first, seconds: first.seconds + again.seconds, cpu: sum(first.cpu, again.cpu) };
  if (again.failed > 0 || again.passed === 0)
    return { ...outcome, notes: [...(first.notes ?? []), ...(again.notes ?? []).map((n) => `again: ${n}`)] };
  return {
    ...outcome,
    passed: first.passed + first.failed,
    failed: 0,
    notes: (first.notes ?? []).map((n) => n.replace(/^failed: /, 'flaky (passed when its file ran again): ')),
  };
}

function sum(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined || b === undefined ? undefined : a + b;
}

/**
 * One Vitest run; counts come from its JSON report. A crash with no report counts as one failure. Runs
 * may go side by side (the PostgreSQL API run waits on its database much of the time): each one's
 * output is printed whole when it ends, so the logs do not interleave.
 */
function vitestRun(
  name: string,
  projects: string[],
  env: Record<string, string | undefined>,
  exclude: string[],
  extra: string[],
  keepPriority: boolean,
): Promise<Outcome & { failedFiles: string[] }> {
  const t = Date.now();
  const report = path.join(tmp, `vitest-${name.replace(/\W+/g, '-')}.json`);
  rmSync(report, { force: true });
  const meter = cpuMeter(
    ...niced(
      node,
      [
        bin('vitest'),
        'run',
        ...projects.flatMap((p) => ['--project', p]),
        ...extra,
        '--reporter=default',
        '--reporter=json',
        `--outputFile.json=${report}`,
      ],
      keepPriority || name.startsWith('multi'),
    ),
  );
  return new Promise((resolve) => {
    const child = spawn(meter.cmd, meter.args, {
      cwd: root,
      // vitest.config.ts reads the exclusions (its --exclude flag does not reach a project's list).
      env: { ...process.env, FORCE_COLOR: '1', ...env, RALLY_TEST_EXCLUDE: exclude.join(',') },
    });
    const out: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => out.push(c));
    const done = (code: number | null) => {
      banner(name);
      process.stdout.write(Buffer.concat(out));
      let passed = 0;
      let failed = 0;
      const notes: string[] = [];
      const failedFiles: string[] = [];
      if (existsSync(report)) {
        const r = JSON.parse(readFileSync(report, 'utf8')) as JsonTestResults;
        passed = r.numPassedTests;
        failed = r.numFailedTests;
        for (const file of r.testResults) {
          const where = path.relative(root, file.name);
          if (file.status === 'failed') failedFiles.push(where);
          for (const a of file.assertionResults.filter((x) => x.status === 'failed'))
            notes.push(`failed: ${where} › ${a.fullName}: ${firstLine(a.failureMessages?.[0])}`);
          if (file.status === 'failed' && !file.assertionResults.some((x) => x.status === 'failed'))
            notes.push(`failed: ${where}: ${firstLine(file.message)}`);
        }
        slowest(r.testResults.map((f) => [path.relative(root, f.name), (f.endTime - f.startTime) / 1000]));
      }
      if (code !== 0 && failed === 0) failed = 1; // a failed file or an unhandled error
      // An error outside the files' tests (an unhandled rejection) is not theirs to run again.
      if (/Unhandled (Error|Rejection)/i.test(stripAnsi(Buffer.concat(out).toString()) ?? ''))
        failedFiles.length = 0;
      resolve({
        name,
        passed,
        failed,
        seconds: (Date.now() - t) / 1000,
        cpu: meter.read(),
        notes,
        failedFiles,
      });
    };
    child.once('error', (err) => {
      out.push(Buffer.from(`${String(err)}\n`));
      done(1);
    });
    child.once('close', done);
  });
}

/** Debian's `chromium` and its headless shell (the browser the end-to-end run drives: test-lib.ts `CHROMIUM`). */
function ensureChromium() {
  if (existsSync(CHROMIUM) && existsSync(CHROMIUM_FULL)) return;
  banner('Installing Debian chromium and chromium-headless-shell (missing)');
  const asRoot = process.getuid?.() === 0 ? [] : ['sudo'];
  const apt = (args: string[]) =>
    spawnSync(asRoot[0] ?? 'apt-get', [...(asRoot.length ? ['apt-get'] : []), ...args], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    }).status;
  if (
    apt(['update', '-qq']) !== 0 ||
    apt(['install', '-y', '-qq', 'chromium', 'chromium-headless-shell']) !== 0 ||
    !existsSync(CHROMIUM)
  ) {
    console.error(`Could not install chromium; end-to-end tests need ${CHROMIUM}.`);
  }
}

/**
 * The end-to-end server's database where CI has PostgreSQL: a new, empty one on the test server, which
 * the server migrates and seeds as in production (docs/decisions/0043). On the embedded database the
 * server's one thread ran both workers' requests and the database itself (WebAssembly): beside the
 * other lanes, three specs took 294-344 s on it against 192-203 s on PostgreSQL (alone, 162 s both).
 * The embedded mode keeps end-to-end tests of its own (analytics-addons.spec.ts starts servers on it)
 * and the whole API suite.
 */
async function e2eDatabase(serverUrl: string) {
  const name = `rally_e2e_${process.pid}`;
  await dropDatabase(serverUrl, name);
  await adminQuery(serverUrl, `create database ${name}`);
  return { url: databaseUrl(serverUrl, name), drop: () => dropDatabase(serverUrl, name) };
}

async function e2e(built: boolean) {
  banner('End-to-end tests (Playwright, Debian Chromium)');
  const t = Date.now();
  ensureChromium();
  if (!built) {
    outcomes.push({
      name: 'e2e',
      passed: 0,
      failed: 1,
      seconds: (Date.now() - t) / 1000,
      notes: ['the web build failed'],
    });
    return;
  }
  const report = path.join(tmp, 'playwright.json');
  rmSync(report, { force: true });
  // A server that refuses the database (connections used up, no right to create one) fails this lane
  // with its reason, not the whole run before its summary.
  let database: Awaited<ReturnType<typeof e2eDatabase>> | undefined;
  try {
    database = testDb ? await e2eDatabase(testDb) : undefined;
  } catch (err) {
    outcomes.push({
      name: 'e2e',
      passed: 0,
      failed: 1,
      seconds: (Date.now() - t) / 1000,
      notes: [`could not create the end-to-end database (TEST_DATABASE_URL): ${String(err)}`],
    });
    return;
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), 'rally-e2e-'));
  const { code, tail, cpu } = await run(
    node,
    [bin('playwright'), 'test', '--config', 'e2e/playwright.config.ts'],
    {
      E2E_PORT: String(await freePort()),
      E2E_RETRIES: '1',
      // Beside the other lanes every screen is several times slower than alone (playwright.config.ts).
      E2E_TIME_FACTOR: process.env.E2E_TIME_FACTOR ?? '2',
      E2E_DATA_DIR: dataDir,
      // Where the shell could not be installed, playwright.config.ts falls back to Debian's chromium.
      CHROMIUM_PATH: existsSync(CHROMIUM) ? CHROMIUM : undefined,
      PLAYWRIGHT_JSON_OUTPUT_NAME: report,
      // The API suites' database must not leak into the server under test: it gets one of its own.
      DATABASE_URL: undefined,
      E2E_DATABASE_URL: database?.url,
      // The API suites run beside it on the same Redis: the server's keys and channels stay apart.
      REDIS_PREFIX: `rally-e2e-${process.pid}:`,
    },
  );
  rmSync(dataDir, { recursive: true, force: true });
  await database
    ?.drop()
    .catch((err: unknown) => console.error(`could not drop the e2e database: ${String(err)}`));
  let passed = 0;
  let failed = 0;
  const notes: string[] = [];
  if (existsSync(report)) {
    const r = JSON.parse(readFileSync(report, 'utf8')) as JSONReport;
    passed = r.stats.expected + r.stats.flaky;
    failed = r.stats.unexpected;
    const walk = (suite: JSONReportSuite) => {
      for (const spec of suite.specs)
        for (const t of spec.tests)
          if (t.status === 'unexpected' || t.status === 'flaky') {
            const error = t.results.find((x) => x.error)?.error?.message;
            notes.push(
              `${t.status === 'flaky' ? 'flaky (passed on retry)' : 'failed'}: ${spec.file}:${spec.line} › ${spec.title}: ${firstLine(stripAnsi(error))}`,
            );
          }
      for (const child of suite.suites ?? []) walk(child);
    };
    for (const suite of r.suites) walk(suite);
    // Test time per spec file, retries included (workers run side by side: the sum exceeds the lane).
    const perFile = new Map<string, number>();
    const sum = (suite: JSONReportSuite) => {
      for (const spec of suite.specs)
        for (const t of spec.tests)
          for (const x of t.results)
            perFile.set(spec.file, (perFile.get(spec.file) ?? 0) + x.duration / 1000);
      for (const child of suite.suites ?? []) sum(child);
    };
    for (const suite of r.suites) sum(suite);
    slowest([...perFile]);
    // Errors outside any test (global setup, a spec that does not load).
    for (const e of r.errors) notes.push(`error: ${firstLine(stripAnsi(e.message))}`);
  }
  if (code !== 0 && failed === 0) {
    failed = 1;
    notes.push(`exited with ${code} before any test failed; its last lines:`, ...tail.map((l) => `  ${l}`));
  }
  outcomes.push({ name: 'e2e', passed, failed, seconds: (Date.now() - t) / 1000, cpu, notes });
}

const testDb = process.env.TEST_DATABASE_URL;

/**
 * Four API files at a time, not Vitest's two. The API runs wait far more than they compute: alone, the
 * PGlite run used 584 s of CPU in 1,100 s with two files at a time (half a core), the PostgreSQL run
 * finished in 421 s with four (2026-12-06, bench/README.md "CI time"). Each file has a database of its
 * own; test apps keep four connections (test/helpers.ts), so four files stay far under PostgreSQL's
 * 100 connections (54 at most, sampled).
 */
const API_WORKERS = ['--maxWorkers=4'];
/**
 * API files that run on one database only when both are there: a 100,000-row export (on PGlite it
 * took 30–80 s), and the three walks of every route (fuzzed input, the access matrix, the foreign
 * tenant: 240–374 s each on PGlite beside the other lanes, 97 s of CPU together). What the walks
 * check is the routes' own answers, not the engine under them; every route's own tests still run on
 * both. They run on PostgreSQL, the production database; without TEST_DATABASE_URL, on PGlite.
 * (The crash tests, once here too, are in the multi-process lane.)
 */
const ONCE_ON_POSTGRES = [
  'apps/server/test/reports-export.test.ts',
  'apps/server/test/fuzz.test.ts',
  'apps/server/test/access-matrix.test.ts',
  'apps/server/test/tenant-walk.test.ts',
];

/** Whether a Redis answers at `url`: a PING over a plain socket, 1 s at most. */
function redisAnswers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname || '127.0.0.1', port: Number(port || 6379) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    // +PONG, or -NOAUTH from a Redis with a password: either way a Redis is there.
    socket.once('data', (d: Buffer) => done(/^[+-]/.test(d.toString())));
  });
}

/**
 * The multi-process suite (apps/server/test/multi: real server processes, several instances on one
 * database, crashes, a Redis stopped and started), where CI has PostgreSQL and Redis. It gets a
 * `redis-server` of its own on a free port, stopped by its pid at the end, so the API runs' Redis
 * and its keys stay out of it.
 */
async function multiprocess(): Promise<Outcome | undefined> {
  const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  if (!testDb || spawnSync('redis-server', ['--version']).status !== 0 || !(await redisAnswers(redisUrl))) {
    console.log('\nPostgreSQL (TEST_DATABASE_URL), Redis or redis-server missing: no multi-process suite.');
    return undefined;
  }
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const redis = spawn('redis-server', args, { stdio: 'ignore' });
  redis.once('error', () => {});
  const ownUrl = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 100 && !(await redisAnswers(ownUrl)); i++) await new Promise((r) => setTimeout(r, 50));
  try {
    // Two files at a time: each starts up to three servers (six connections each) and waits on them
    // most of the time. It runs after the PostgreSQL API run (below): beside it, two files at once
    // took the server past its 100 connections ("too many clients") in a CI-like run.
    return await vitest(
      'multi-process (PostgreSQL, own Redis)',
      ['multiprocess'],
      { TEST_DATABASE_URL: testDb, REDIS_URL: ownUrl },
      [],
      ['--maxWorkers=2'],
    );
  } finally {
    if (redis.exitCode === null && redis.pid) {
      const gone = new Promise((r) => redis.once('exit', r));
      process.kill(redis.pid, 'SIGTERM');
      await gone;
    }
  }
}
// Everything goes side by side from the start: the suites spend much of their time waiting (child
// servers, timers, the database, the browser), and a lane that waited for another left a core idle.
// The CI run of 2026-12-05 took 1,310 s with the checks first and three lanes after them, of which the
// PostgreSQL API run alone took 1,180 s. Now four lanes: the checks (types, lint, format); the
// end-to-end tests (printed live); the unit suite then the PGlite API run; the PostgreSQL API run then
// the multi-process suite. The others print whole when they end. Installing Chromium (apt) blocks this
// process: done before anything starts. The web build goes first, alone (3-7 s): the end-to-end lane
// is the run's longest, and beside the other lanes the build took 20 s before it could start.
ensureChromium();
const build = await check('web build (for the end-to-end tests)', 'npm', ['run', 'build', '--silent'], true);
const e2eRun = e2e(build.failed === 0);
const checks = Promise.all([
  check('types', node, [path.join(root, 'scripts/typecheck.ts')]),
  check('lint', node, [bin('eslint'), '.', '--max-warnings=0']),
  check('format', node, [bin('prettier'), '--check', '.', '--log-level=warn']),
]);
const apiPgRun = testDb
  ? vitest(
      `api (PostgreSQL ${new URL(testDb).host}${new URL(testDb).pathname})`,
      ['server'],
      { TEST_DATABASE_URL: testDb },
      [],
      API_WORKERS,
    )
  : Promise.resolve(undefined);
const [[types, lint, format], [unit, apiLite], apiPg, multi] = await Promise.all([
  checks,
  (async () => {
    // The web screen tests wait on jsdom's timers and transitions: at nice 10 beside the e2e run
    // 11 of them ran out of time in the CI-like run, so this lane keeps the normal priority.
    const unitRun = await vitest('unit', ['shared', 'web'], { TEST_DATABASE_URL: undefined }, [], [], true);
    const liteRun = await vitest(
      'api (PGlite)',
      ['server'],
      { TEST_DATABASE_URL: undefined, DATABASE_URL: undefined },
      testDb ? ONCE_ON_POSTGRES : [],
      API_WORKERS,
    );
    return [unitRun, liteRun] as const;
  })(),
  apiPgRun,
  // After the PostgreSQL API run, not beside it: the two together took PostgreSQL past its 100
  // connections in two CI-like runs of 2026-12-06 ("too many clients": a multi-process test could not
  // connect), though each alone stays well under. It costs a few minutes of wall time at the end.
  apiPgRun.then(() => multiprocess()),
]);
outcomes.push(types, lint, format, unit, apiLite);
if (apiPg) outcomes.push(apiPg);
else console.log('\nTEST_DATABASE_URL is not set: the API suite ran on PGlite only.');
if (multi) outcomes.push(multi);
await e2eRun;

banner('Summary');
for (const o of outcomes) {
  console.log(
    `${o.failed ? '✗' : '✓'} ${o.name.padEnd(40)} ${String(o.passed).padStart(4)} passed ${String(o.failed).padStart(3)} failed  ${o.seconds.toFixed(1)}s${o.cpu === undefined ? '' : ` (CPU ${o.cpu.toFixed(1)}s)`}`,
  );
}
// The failures again at the end, where a truncated CI log still shows them.
for (const note of outcomes.flatMap((o) => (o.notes ?? []).map((n) => `  ${o.name}: ${n}`)))
  console.log(note);
const passed = outcomes.reduce((n, o) => n + o.passed, 0);
const failed = outcomes.reduce((n, o) => n + o.failed, 0);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
