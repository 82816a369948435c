import { describe, expect, it } from 'vitest';
import { EXPECTED_DRIVER, createTestApp } from '../../../test/helpers.ts';

describe('health probes', () => {
  it('/healthz answers ok and /readyz checks the database', async () => {
    const app = await createTestApp();
    const live = await app.inject('/healthz');
    expect(live.statusCode).toBe(200);
    expect(live.json()).toEqual({ status: 'ok' });

    const ready = await app.inject('/readyz');
    expect(ready.statusCode).toBe(200);
    // Shows which database the suite really ran on (PGlite, or PostgreSQL in the second run).
    expect(ready.json()).toEqual({ status: 'ok', database: EXPECTED_DRIVER });
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
});
