import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../helpers.ts';
import { MAIN, startServer, stopServer } from '../server-process.ts';

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
  // Set up here, not in the test: Vitest ignores afterAll hooks registered while a test runs.
  const dataDir = mkdtempSync(path.join(tmpdir(), 'rally-restart-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints the demo sign-in, shuts down gracefully on SIGTERM, and keeps its data without duplicating the seed', async () => {
    const databaseUrl = await freshDatabaseUrl();
    const env: Record<string, string> = {
      DATA_DIR: dataDir,
      // The demo seed and the shutdown line are what this test reads.
      LOG_LEVEL: 'info',
      SEED_DEMO: 'true',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    };

    const first = await startServer(env, { timeoutMs: 150_000 });
    expect(first.output()).toContain('Demo sign-in: demo@rally.test / rally-demo-2026');
    expect((await fetch(`${first.url}/readyz`)).status).toBe(200);
    expect(await stopServer(first)).toBe(0);
    expect(first.output()).toMatch(/"signal":"SIGTERM".*shutting down/);

    const usersAfterFirst = await countUsers(env);
    expect(usersAfterFirst).toBeGreaterThan(0);

    const second = await startServer(env, { timeoutMs: 150_000 });
    expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
    expect(await stopServer(second)).toBe(0);
    expect(await countUsers(env)).toBe(usersAfterFirst);
  }, 360_000);

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
