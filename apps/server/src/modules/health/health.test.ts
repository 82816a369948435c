import { describe, expect, it } from 'vitest';
import { EXPECTED_DRIVER, TEST_DATABASE_URL, createTestApp } from '../../../test/helpers.ts';

describe('health probes', () => {
  it('/healthz answers ok and /readyz checks the database', async () => {
    const app = await createTestApp();
    const live = await app.inject('/healthz');
    expect(live.statusCode).toBe(200);
    expect(live.json()).toEqual({ status: 'ok' });

    const ready = await app.inject('/readyz');
    expect(ready.statusCode).toBe(200);
    // Shows which database the suite really ran on (PGlite, or PostgreSQL in the second run).
    expect(ready.json()).toEqual({ status: 'ok', database: EXPECTED_DRIVER, redis: 'not configured' });
  });

  it('/readyz is 503 when the database is gone', async () => {
    const app = await createTestApp();
    await app.database.close();
    const res = await app.inject('/readyz');
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ status: 'unavailable', message: 'database unreachable' });
  });

  it('echoes a request id, honouring a well-formed one from the caller', async () => {
    const app = await createTestApp();
    const given = await app.inject({ url: '/healthz', headers: { 'x-request-id': 'lb-1234' } });
    expect(given.headers['x-request-id']).toBe('lb-1234');
    const made = await app.inject({ url: '/healthz', headers: { 'x-request-id': 'bad id with spaces' } });
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.skipIf(TEST_DATABASE_URL)(
    'the embedded database runs with the shared buffers PGLITE_SHARED_BUFFERS_MB asks for',
    async () => {
      // Not the default (16), so it is the variable that reaches PGlite (bench/README.md "Embedded mode").
      const app = await createTestApp({ env: { PGLITE_SHARED_BUFFERS_MB: '24' } });
      const { rows } = await app.database.execute('show shared_buffers');
      expect(rows).toEqual([{ shared_buffers: '24MB' }]);
    },
  );
});
