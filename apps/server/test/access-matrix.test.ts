import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '@rally/shared';
import { sessions } from '../src/db/schema/index.ts';
import { NOT_AUTHENTICATED, SSO_SCOPE_DENIED } from '../src/lib/access.ts';
import { hashToken, randomToken } from '../src/lib/crypto.ts';
import { createTestApp } from './helpers.ts';
import { Browser, makeClient, makeUser, signedIn } from './http.ts';

/**
 * Every API route, whatever feature adds it, is refused the same way: 401 signed out, 403 without
 * the CSRF token on a write, 422 without x-client-id, 403 for a client the user is not in, 403
 * without the route's permission.
 */
describe('access matrix over every API route', async () => {
  const app = await createTestApp();
  const mine = await makeClient(app, 'Mine');
  const foreign = await makeClient(app, 'Foreign');
  const routes = app.routeAccess.filter((r) => r.access !== 'public');
  const fill = (url: string) => url.replace(':clientId', mine).replace(/:(\w+)/g, () => randomUUID());
  const { browser: viewer } = await signedIn(app, { [mine]: 'grey_viewer' });

  it('knows the routes (sanity)', () => {
    expect(routes.length).toBeGreaterThan(10);
    expect(routes).toContainEqual({
      method: 'GET',
      url: '/v1/rest/client/:clientId/users',
      access: { permission: 'users.read' },
      csrf: true,
    });
  });

  it('declares the embedded report routes: members list, settings.write makes and revokes, links are public', () => {
    const embedded = app.routeAccess.filter((r) => r.url.includes('/reports/embedded'));
    expect(embedded).toEqual(
      expect.arrayContaining([
        { method: 'GET', url: '/v1/rest/reports/embedded', access: 'public', csrf: true },
        { method: 'GET', url: '/v1/rest/reports/embedded/:id', access: 'public', csrf: true },
        {
          method: 'GET',
          url: '/v1/rest/client/:clientId/reports/embedded',
          access: { permission: 'reports.read' },
          csrf: true,
        },
        {
          method: 'POST',
          url: '/v1/rest/client/:clientId/reports/embedded',
          access: { permission: 'settings.write' },
          csrf: true,
        },
        {
          method: 'DELETE',
          url: '/v1/rest/client/:clientId/reports/embedded/:id',
          access: { permission: 'settings.write' },
          csrf: true,
        },
      ]),
    );
    expect(embedded).toHaveLength(5);
  });

  it('401 with a JSON message when not signed in', async () => {
    const anon = new Browser(app);
    for (const r of routes) {
      const res = await anon.request({
        method: r.method as 'GET',
        url: fill(r.url),
        payload: r.method === 'GET' ? undefined : {},
        clientId: mine,
      });
      expect(res.statusCode, `${r.method} ${r.url}`).toBe(401);
      expect(res.json(), `${r.method} ${r.url}`).toEqual({ message: NOT_AUTHENTICATED });
    }
  });

  it('403 on writes without the x-xsrf-token header, or with a wrong one', async () => {
    for (const r of routes.filter((x) => x.method !== 'GET' && x.csrf)) {
      for (const csrf of [false, 'forged-token'] as const) {
        const res = await viewer.request({ method: r.method as 'POST', url: fill(r.url), payload: {}, csrf });
        expect(res.statusCode, `${r.method} ${r.url} csrf=${csrf}`).toBe(403);
        expect(res.json().message).toMatch(/x-xsrf-token/);
      }
    }
  });

  it('422 naming x-client-id when it is missing or not a UUID, 403 for a foreign client', async () => {
    for (const r of routes.filter((x) => x.access !== 'session')) {
      const missing = await viewer.request({
        method: r.method as 'GET',
        url: fill(r.url),
        payload: r.method === 'GET' ? undefined : {},
        clientId: null,
      });
      expect(missing.statusCode, `${r.method} ${r.url}`).toBe(422);
      expect(missing.json().errors[0].field).toBe('headers.x-client-id');
      const foreignRes = await viewer.request({
        method: r.method as 'GET',
        url: r.url.replace(':clientId', foreign).replace(/:(\w+)/g, () => randomUUID()),
        payload: r.method === 'GET' ? undefined : {},
        clientId: foreign,
      });
      expect(foreignRes.statusCode, `${r.method} ${r.url}`).toBe(403);
    }
  });

  it('403 when the path names another client than x-client-id', async () => {
    for (const r of routes.filter((x) => x.url.includes(':clientId'))) {
      const res = await viewer.request({
        method: r.method as 'GET',
        url: r.url.replace(':clientId', foreign).replace(/:(\w+)/g, () => randomUUID()),
        payload: r.method === 'GET' ? undefined : {},
      });
      expect(res.statusCode, `${r.method} ${r.url}`).toBe(403);
    }
  });

  it('403 without the route permission (a grey_viewer has none)', async () => {
    for (const r of routes.filter((x) => typeof x.access === 'object')) {
      const res = await viewer.request({
        method: r.method as 'GET',
        url: fill(r.url),
        payload: r.method === 'GET' ? undefined : {},
      });
      expect(res.statusCode, `${r.method} ${r.url}`).toBe(403);
      expect(res.json().message).toMatch(/^Access Denied/);
    }
  });

  it("403 in any other client for a session a client's single sign-on started (issue 37.1)", async () => {
    // An owner of both clients, signed in by the single sign-on of `foreign`: `mine` is out of reach.
    const owner = await makeUser(app, { [mine]: 'purple_owner', [foreign]: 'purple_owner' });
    const token = randomToken();
    await app.db.insert(sessions).values({
      tokenHash: hashToken(token),
      userId: owner.id,
      expiresAt: new Date(Date.now() + 3_600_000),
      scopeClientId: foreign,
    });
    const scoped = new Browser(app);
    scoped.cookies.set(SESSION_COOKIE, token);
    scoped.clientId = mine;
    for (const r of routes.filter((x) => x.access !== 'session')) {
      const res = await scoped.request({
        method: r.method as 'GET',
        url: fill(r.url),
        payload: r.method === 'GET' ? undefined : {},
      });
      expect(res.statusCode, `${r.method} ${r.url}`).toBe(403);
      expect(res.json(), `${r.method} ${r.url}`).toEqual({ message: SSO_SCOPE_DENIED });
    }
    expect((await scoped.get(`/v1/rest/client/${foreign}/users`, { clientId: foreign })).statusCode).toBe(
      200,
    );
  });
});
