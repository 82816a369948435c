import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { createTestApp } from '../../test/helpers.ts';
import { Browser } from '../../test/http.ts';
import { apiBase } from './api-base.ts';

describe('API bases', () => {
  it('refuses to start with a route that declares no access', async () => {
    const app = await createTestApp({ ready: false });
    const undeclared: FastifyPluginAsyncZod = async (a) => {
      a.get('/naked', async () => ({ ok: true }));
    };
    const boot = async () => {
      await app.register(apiBase, { prefix: '/v1/probe', modules: [undeclared] });
      await app.ready();
    };
    await expect(boot()).rejects.toThrow(/Route GET \/v1\/probe\/naked declares no access/);
  });

  it('answers bad input with 422 naming the field, and never leaks a 500', async () => {
    const app = await createTestApp({ ready: false });
    const probe: FastifyPluginAsyncZod = async (a) => {
      a.post(
        '/echo',
        {
          config: { access: 'public' },
          schema: { body: z.object({ email: z.email(), age: z.number().int() }) },
        },
        async (req) => req.body,
      );
      a.get('/boom', { config: { access: 'public' } }, async () => {
        throw new Error('secret internals');
      });
    };
    await app.register(apiBase, { prefix: '/v1/probe', modules: [probe] });
    await app.ready();

    const browser = new Browser(app);
    const bad = await browser.post('/v1/probe/echo', { email: 'nope', age: 3 });
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toMatchObject({
      message: expect.stringMatching(/^body\.email: /),
      errors: [{ field: 'body.email' }],
    });

    const ok = await browser.post('/v1/probe/echo', { email: 'a@b.co', age: 3 });
    expect(ok.statusCode).toBe(200);

    const boom = await app.inject('/v1/probe/boom');
    expect(boom.statusCode).toBe(500);
    expect(boom.json()).toEqual({ message: 'Something went wrong. Please contact the support team.' });
    expect(boom.body).not.toContain('secret internals');
  });

  it('runs only the bases named in SERVICES', async () => {
    const app = await createTestApp({ env: { SERVICES: 'sc' } });
    expect((await app.inject('/sc/nope')).json()).toEqual({ message: 'Not found: GET /sc/nope' });
    // No main service: no SPA and no /v1 base in this process.
    expect((await app.inject('/login')).statusCode).toBe(404);
    expect((await app.inject('/v1/nope')).json()).not.toEqual({ message: 'Not found: GET /v1/nope' });
    expect((await app.inject('/healthz')).statusCode).toBe(200);
  });

  it('publishes the OpenAPI document at /v1/docs', async () => {
    const app = await createTestApp();
    const doc = await app.inject('/v1/docs/json');
    expect(doc.statusCode).toBe(200);
    expect(doc.json()).toMatchObject({
      openapi: expect.stringMatching(/^3\./),
      info: { title: 'Rally API' },
    });
    const ui = await app.inject('/v1/docs/');
    expect(ui.statusCode).toBe(200);
    expect(ui.headers['content-type']).toContain('text/html');
  });
});
