import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './env.ts';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('has working defaults: embedded database in ./data, all three services, port 3000', () => {
    const c = loadConfig({ DATA_DIR: 'memory://' });
    expect(c).toMatchObject({
      port: 3000,
      publicUrl: 'http://localhost:3000',
      databaseUrl: undefined,
      services: ['main', 'sc', 'biller'],
      seedDemo: true,
      pgliteSharedBuffersMb: 16,
    });
    expect(loadConfig({ APP_SECRET: 'x'.repeat(32) }).dataDir).toBe(path.resolve('./data'));
  });

  it('names each bad variable and what it got', () => {
    const problems = problemsOf({
      PORT: 'eighty',
      DATABASE_URL: 'mysql://x',
      SMTP_URL: 'mail.example.com',
      REDIS_URL: 'localhost:6379',
      PUBLIC_URL: 'not a url',
      SERVICES: 'main,billing',
      APP_SECRET: 'short',
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^PORT: must be a whole number from 0 to 65535 \(got "eighty"\)$/),
        expect.stringMatching(/^DATABASE_URL: must be a postgres:\/\/ or postgresql:\/\/ URL/),
        expect.stringMatching(/^SMTP_URL: must be an smtp:\/\/ or smtps:\/\/ URL/),
        expect.stringMatching(/^REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL/),
        expect.stringMatching(/^PUBLIC_URL: must be a URL/),
        expect.stringMatching(/^SERVICES: each must be one of main, sc, biller/),
        expect.stringMatching(/^APP_SECRET: must be at least 32 characters/),
      ]),
    );
    expect(problems).toHaveLength(7);
  });

  it('bounds PGLITE_SHARED_BUFFERS_MB', () => {
    expect(loadConfig({ DATA_DIR: 'memory://', PGLITE_SHARED_BUFFERS_MB: '64' }).pgliteSharedBuffersMb).toBe(
      64,
    );
    for (const [v, why] of [
      ['4', 'must be at least 8'],
      ['4096', 'must be at most 1024'],
      ['1.5', 'must be a whole number of megabytes'],
      ['16MB', 'must be a whole number of megabytes'],
    ])
      expect(problemsOf({ DATA_DIR: 'memory://', PGLITE_SHARED_BUFFERS_MB: v! })).toEqual([
        `PGLITE_SHARED_BUFFERS_MB: ${why} (got "${v}")`,
      ]);
  });

  it('bounds DATABASE_POOL_SIZE (default 10)', () => {
    expect(loadConfig({ DATA_DIR: 'memory://' }).databasePoolSize).toBe(10);
    expect(loadConfig({ DATA_DIR: 'memory://', DATABASE_POOL_SIZE: '25' }).databasePoolSize).toBe(25);
    for (const [v, why] of [
      ['1', 'must be at least 2'],
      ['500', 'must be at most 200'],
      ['2.5', 'must be a whole number of connections'],
      ['many', 'must be a whole number of connections'],
    ])
      expect(problemsOf({ DATA_DIR: 'memory://', DATABASE_POOL_SIZE: v! })).toEqual([
        `DATABASE_POOL_SIZE: ${why} (got "${v}")`,
      ]);
  });

  it('requires APP_SECRET in production', () => {
    expect(problemsOf({ NODE_ENV: 'production', DATA_DIR: 'memory://' })).toEqual([
      'APP_SECRET: is required when NODE_ENV=production (at least 32 characters)',
    ]);
  });

  it('does not seed the demo in production: off by default there, and SEED_DEMO=true is refused', () => {
    const production = { NODE_ENV: 'production', APP_SECRET: 'x'.repeat(32), DATA_DIR: 'memory://' };
    expect(loadConfig(production).seedDemo).toBe(false);
    expect(loadConfig({ ...production, SEED_DEMO: 'false' }).seedDemo).toBe(false);
    for (const v of ['true', '1'])
      expect(problemsOf({ ...production, SEED_DEMO: v })).toEqual([
        'SEED_DEMO: must not be true when NODE_ENV=production (the demo accounts have a published password); unset it or set it to false',
      ]);
    expect(loadConfig({ DATA_DIR: 'memory://', NODE_ENV: 'development' }).seedDemo).toBe(true);
    expect(loadConfig({ DATA_DIR: 'memory://', SEED_DEMO: 'false' }).seedDemo).toBe(false);
  });

  it('TRUST_PROXY: off by default, a hop count or a list of proxies; `true` and bad entries are refused', () => {
    const base = { DATA_DIR: 'memory://' };
    expect(loadConfig(base).trustProxy).toBe(false);
    expect(loadConfig({ ...base, NODE_ENV: 'production', APP_SECRET: 'x'.repeat(32) }).trustProxy).toBe(
      false,
    );
    expect(loadConfig({ ...base, TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ ...base, TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(
      loadConfig({ ...base, TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,loopback, fd00::/8' }).trustProxy,
    ).toEqual(['10.0.0.0/8', '127.0.0.1', 'loopback', 'fd00::/8']);
    expect(problemsOf({ ...base, TRUST_PROXY: 'true' })[0]).toMatch(/^TRUST_PROXY: must name the proxies/);
    expect(problemsOf({ ...base, TRUST_PROXY: '10.0.0.0/33,proxy.local' })).toEqual([
      'TRUST_PROXY: must be a hop count or a comma-separated list of IP addresses, CIDR ranges, loopback, linklocal or uniquelocal; not understood: 10.0.0.0/33, proxy.local (got "10.0.0.0/33,proxy.local")',
    ]);
    expect(problemsOf({ ...base, TRUST_PROXY: '99' })).toEqual([
      'TRUST_PROXY: a hop count must be at most 20 (got "99")',
    ]);
  });

  it('runs a subset of the API bases when SERVICES says so', () => {
    expect(loadConfig({ SERVICES: 'sc, biller', DATA_DIR: 'memory://' }).services).toEqual(['sc', 'biller']);
  });

  it('outside production, generates APP_SECRET once and keeps it in the data folder', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rally-config-'));
    try {
      const first = loadConfig({ DATA_DIR: dir }).appSecret;
      expect(first).toMatch(/^[0-9a-f]{64}$/);
      expect(existsSync(path.join(dir, 'app-secret'))).toBe(true);
      expect(readFileSync(path.join(dir, 'app-secret'), 'utf8')).toBe(first);
      expect(loadConfig({ DATA_DIR: dir }).appSecret).toBe(first);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
