import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { FIXTURE_WEB_DIST, here } from './helpers.ts';

/** The real server's entry point, as `npm start` runs it. */
export const MAIN = path.join(here, '../src/main.ts');

/**
 * The Redis keys and channels of this worker's servers: npm test runs two multi-process files at a
 * time on one Redis, and their servers (all on 127.0.0.1) must not share sign-in limits or caches.
 */
const REDIS_PREFIX = `rally-multi-${randomUUID().slice(0, 8)}:`;

export type ServerProcess = { child: ChildProcess; url: string; output: () => string };

/**
 * Starts the real server process (`node src/main.ts`) on a free loopback port and waits for its
 * ready line. `env` adds to (and overrides) the defaults below.
 */
export function startServer(
  env: Record<string, string>,
  // Generous: on a machine busy with other test files, starting alone can take half a minute.
  opts: { timeoutMs?: number } = {},
): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN], {
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        WEB_DIST: FIXTURE_WEB_DIST,
        // PostgreSQL's max_connections is 100: three instances of two files at 10 each plus the API
        // suite's apps ran out of them ("too many clients", a tag answered 500). Six each leave room.
        DATABASE_POOL_SIZE: '6',
        REDIS_PREFIX,
        HOLDOUT_DEFAULT_PERCENT: '0',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    // A server that did not start in time is killed: left running, it would go on loading the
    // machine under the files that come after.
    const timer = setTimeout(() => {
      child.removeAllListeners('exit');
      child.kill('SIGKILL');
      reject(new Error(`server did not start in ${opts.timeoutMs ?? 120_000} ms:\n${out}`));
    }, opts.timeoutMs ?? 120_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = out.match(/ready at (http:\/\/\S+)/);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve({ child, url: m[1], output: () => out });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${out}`));
    });
  });
}

/** Sends `signal` and resolves with the exit code once the process has gone (null if killed). */
export async function stopServer(
  s: ServerProcess,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<number | null> {
  s.child.removeAllListeners('exit');
  if (s.child.exitCode !== null || s.child.signalCode !== null) return s.child.exitCode;
  const exited = once(s.child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  s.child.kill(signal);
  const [code] = await exited;
  return code;
}
