import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { DEMO_EMAIL, DEMO_PASSWORD } from '../../src/db/seed.ts';
import { freshDatabaseUrl } from '../helpers.ts';
import { HttpBrowser } from '../http-browser.ts';
import { MAIN, startServer, stopServer } from '../server-process.ts';

const PRODUCTION = { NODE_ENV: 'production', APP_SECRET: 'p'.repeat(64), DATA_DIR: 'memory://' };

// Issue 37 item 7: `SEED_DEMO` defaulted to true under NODE_ENV=production, so a production server
// had demo@rally.test / rally-demo-2026 as the owner of the demo clients.
describe('the demo accounts in production', () => {
  it('refuses to start with SEED_DEMO=true, saying why', async () => {
    const child = spawn(process.execPath, [MAIN], {
      env: { ...process.env, ...PRODUCTION, SEED_DEMO: 'true', PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    // Old code started instead of refusing: kill it rather than leave a server behind.
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    clearTimeout(timer);
    expect(code).toBe(1);
    expect(err).toContain('SEED_DEMO: must not be true when NODE_ENV=production');
  }, 30_000);

  it('starts without them when SEED_DEMO is unset: the demo sign-in is refused', async () => {
    const databaseUrl = await freshDatabaseUrl();
    const server = await startServer({
      ...PRODUCTION,
      LOG_LEVEL: 'info',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    });
    try {
      const res = await new HttpBrowser().post(`${server.url}/v1/api/auth`, {
        email: DEMO_EMAIL,
        password: DEMO_PASSWORD,
      });
      // Before: 200 and an owner's session.
      expect(res.status).toBe(400);
      expect(server.output()).not.toContain('Demo sign-in');
    } finally {
      expect(await stopServer(server)).toBe(0);
    }
  }, 180_000);
});
