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
});
