/** What the lanes of `npm test` (scripts/test.ts) share: paths, the outcome of a lane, its CPU meter, output helpers. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const tmp = path.join(root, '.tmp');
mkdirSync(tmp, { recursive: true });
export const bin = (name: string) => path.join(root, 'node_modules/.bin', name);
// Run every tool under this (pinned Node 24) interpreter, whatever node is first on PATH.
export const node = process.execPath;
/**
 * The end-to-end run's browser: Debian's `chromium-headless-shell` (Chromium's old headless mode, built from the
 * same source as its `chromium`), which ran the same 210 tests with a third less CPU than `chromium --headless`
 * (docs/decisions/0041). `CHROMIUM_PATH` names another (`/usr/bin/chromium` to watch a test headed).
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell';
/** The full browser: analytics-addons.spec.ts needs it (decision 0041), and so does a headed run. */
export const CHROMIUM_FULL = process.env.CHROMIUM_FULL_PATH ?? '/usr/bin/chromium';

/** `notes`: the failed (and, for e2e, flaky) tests by name, repeated in the summary at the end. */
export type Outcome = {
  name: string;
  passed: number;
  failed: number;
  seconds: number;
  /** CPU seconds of the lane's processes (cpuMeter), where the machine says. */
  cpu?: number;
  notes?: string[];
};

/**
 * A lane's CPU: user + system seconds of the command and every process it waited for (Vitest's
 * workers, the browser and the end-to-end server; not PostgreSQL's backends, which are the database
 * server's). On two cores CI's time is the lanes' CPU added up, so the summary prints it beside each
 * lane's wall time. The command runs under a shell that, once it has ended, copies its own
 * /proc/<pid>/stat, whose cutime and cstime count its waited-for descendants. Linux only: elsewhere
 * the command runs as it is and no figure is printed.
 */
const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim()) || 100;
export function cpuMeter(
  cmd: string,
  args: string[],
): { cmd: string; args: string[]; read: () => number | undefined } {
  if (process.platform !== 'linux') return { cmd, args, read: () => undefined };
  const file = path.join(tmp, `cpu-${process.pid}-${Math.random().toString(36).slice(2)}.stat`);
  const script = 'f=$1; shift; "$@"; rc=$?; cat /proc/$$/stat > "$f"; exit $rc';
  return {
    cmd: 'sh',
    args: ['-c', script, 'sh', file, cmd, ...args],
    read: () => {
      if (!existsSync(file)) return undefined;
      const stat = readFileSync(file, 'utf8');
      rmSync(file, { force: true });
      // Fields after the command's name: state is field 3, cutime 16 and cstime 17.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(fields[13]) + Number(fields[14]);
      return Number.isFinite(ticks) ? ticks / CLK_TCK : undefined;
    },
  };
}

export function banner(text: string) {
  console.log(`\n\x1b[1m== ${text} ==\x1b[0m`);
}

/**
 * TEST_NICE=1: the lanes that keep no clock (types, lint, format, the API runs) run at nice 10, so the
 * browser and servers of the end-to-end run get the cores first. Off by default: in the CI-like run
 * of 2026-12-05 the e2e lane went from 51.5 to 46.5 min with it, but the API runs barely moved while
 * it ran and were still going 65 min in (the whole run without it: 54 min), and at nice 10 eleven web
 * screen tests ran out of time. The work is the same; only who waits changes.
 */
export function niced(cmd: string, args: string[], keepPriority = false): [string, string[]] {
  if (
    keepPriority ||
    process.env.TEST_NICE !== '1' ||
    process.platform === 'win32' ||
    spawnSync('nice', ['true']).status !== 0
  )
    return [cmd, args];
  return ['nice', ['-n', '10', cmd, ...args]];
}

/**
 * The lane's ten slowest files, after its output: what to shrink when CI's time grows (a CI log keeps
 * the lanes' ends; the summary would drown in them).
 */
export function slowest(files: [string, number][]) {
  const top = files.sort((a, b) => b[1] - a[1]).slice(0, 10);
  if (top.length === 0) return;
  console.log('Slowest files (s):');
  for (const [file, seconds] of top) console.log(`  ${seconds.toFixed(1).padStart(7)}  ${file}`);
}

// eslint-disable-next-line no-control-regex -- colour codes in Playwright's error messages
export const stripAnsi = (text: string | undefined) => text?.replace(/\x1b\[[0-9;]*m/g, '');

export function firstLine(text: string | undefined): string {
  return (text ?? '').split('\n')[0]?.slice(0, 300) ?? '';
}
