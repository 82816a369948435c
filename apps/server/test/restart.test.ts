import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURE_WEB_DIST, freshDatabaseUrl, here } from './helpers.ts';

const MAIN = path.join(here, '../src/main.ts');

type Started = { child: ChildProcess; url: string; output: () => string };

/** Starts the real server process (`node src/main.ts`) and waits for its ready line. */
function startServer(env: Record<string, string>): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN], {
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        WEB_DIST: FIXTURE_WEB_DIST,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 60_000);
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
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${out}`)));
  });
}

function stop(s: Started): Promise<number | null> {
  return new Promise((resolve) => {
    s.child.removeAllListeners('exit');
    s.child.on('exit', (code) => resolve(code));
    s.child.kill('SIGTERM');
  });
}

async function countUsers(env: Record<string, string>): Promise<number> {
  if (env.DATABASE_URL) {
    const c = new pg.Client({ connectionString: env.DATABASE_URL });
    await c.connect();
    const r = await c.query<{ n: number }>('select count(*)::int as n from users');
    await c.end();
    return r.rows[0]!.n;
  }
  const db = await PGlite.create(path.join(env.DATA_DIR!, 'db'));
  const r = await db.query<{ n: number }>('select count(*)::int as n from users');
  await db.close();
  return r.rows[0]!.n;
}

describe('the server process', () => {
  it('prints the demo sign-in, shuts down gracefully on SIGTERM, and keeps its data without duplicating the seed', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'rally-restart-'));
    afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
    const databaseUrl = await freshDatabaseUrl();
    const env: Record<string, string> = {
      DATA_DIR: dataDir,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    };

    const first = await startServer(env);
    expect(first.output()).toContain('Demo sign-in: demo@rally.test / rally-demo-2026');
    expect((await fetch(`${first.url}/readyz`)).status).toBe(200);
    expect(await stop(first)).toBe(0);
    expect(first.output()).toMatch(/"signal":"SIGTERM".*shutting down/);

    const usersAfterFirst = await countUsers(env);
    expect(usersAfterFirst).toBeGreaterThan(0);

    const second = await startServer(env);
    expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
    expect(await stop(second)).toBe(0);
    expect(await countUsers(env)).toBe(usersAfterFirst);
  }, 120_000);

  it('refuses to start with bad configuration, naming the variable', async () => {
    const child = spawn(process.execPath, [MAIN], {
      env: { ...process.env, PORT: 'abc' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(code).toBe(1);
    expect(err).toContain('PORT: must be a whole number from 0 to 65535 (got "abc")');
  }, 30_000);
});
