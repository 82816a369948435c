import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { INTERNAL_ERROR_MESSAGE, httpError, registerErrorHandler } from './errors.ts';

describe('the error handler', () => {
  it("sends a deliberate 5xx's message (a vendor that did not answer), and hides an unexpected error's", async () => {
    const app = Fastify({ logger: false });
    registerErrorHandler(app);
    app.get('/vendor', async () => {
      throw httpError(502, 'Marketo did not answer: connect ECONNREFUSED');
    });
    app.get('/bug', async () => {
      throw new Error('relation "secret_table" does not exist');
    });
    const vendor = await app.inject({ url: '/vendor' });
    expect(vendor.statusCode).toBe(502);
    expect(vendor.json()).toEqual({ message: 'Marketo did not answer: connect ECONNREFUSED' });
    const bug = await app.inject({ url: '/bug' });
    expect(bug.statusCode).toBe(500);
    expect(bug.json()).toEqual({ message: INTERNAL_ERROR_MESSAGE });
    await app.close();
  });

  it('answers a value PostgreSQL refused (22P05, 22021, 22003, 22P02; wrapped by drizzle) with a 422, not a 500', async () => {
    const app = Fastify({ logger: false });
    registerErrorHandler(app);
    app.get('/:code', async (request) => {
      const { code } = request.params as { code: string };
      throw Object.assign(new Error('Failed query: insert …'), {
        cause: Object.assign(new Error('pg'), { code }),
      });
    });
    for (const code of ['22P05', '22021', '22003', '22P02']) {
      const res = await app.inject({ url: `/${code}` });
      expect(res.statusCode, code).toBe(422);
      expect(res.json().errors[0].field).toBe('request');
    }
    // Other database errors stay 500s with no detail.
    const other = await app.inject({ url: '/42P01' });
    expect(other.statusCode).toBe(500);
    expect(other.json()).toEqual({ message: INTERNAL_ERROR_MESSAGE });
  });
});
