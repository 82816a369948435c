import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { outreachDemoData, startFakeOutreach } from './outreach.ts';
import type { FakeOutreach } from './outreach.ts';

/** The fake must behave like Outreach where our adapter depends on it (integrations/API-NOTES.md §2). */

let fake: FakeOutreach;
let token: string;

beforeEach(async () => {
  fake = await startFakeOutreach({ data: outreachDemoData(Date.UTC(2026, 0, 5, 9)) });
  token = fake.issueTokens().access_token;
});
afterEach(() => fake.close());

type Doc = {
  data: {
    type: string;
    id: number;
    attributes: Record<string, unknown>;
    relationships: Record<string, unknown>;
  }[];
  included?: { type: string; id: number }[];
  links: { next?: string; first: string };
  meta?: { count: number };
  errors?: { id: string; title: string; detail: string; source?: Record<string, string> }[];
};

async function call(path: string, init: RequestInit & { bearer?: string | null } = {}) {
  const headers = new Headers(init.headers);
  if (init.bearer !== null) headers.set('authorization', `Bearer ${init.bearer ?? token}`);
  if (!headers.has('content-type')) headers.set('content-type', 'application/vnd.api+json');
  const res = await fetch(`${fake.apiUrl}${path}`, { ...init, headers });
  return { res, body: (await res.json()) as Doc };
}

describe('fake Outreach', () => {
  it('serves the demo org: 3 users, 3 sequences with steps, 30 prospects in sequenceStates', async () => {
    expect(fake.ids('user')).toHaveLength(3);
    expect(fake.ids('sequence')).toHaveLength(3);
    expect(fake.ids('prospect')).toHaveLength(30);
    const { body } = await call('/sequenceStates?page[size]=1000&include=sequenceStep&count=true');
    expect(body.meta!.count).toBe(30);
    expect(body.data.every((s) => (s.relationships.sequenceStep as { data: unknown }).data !== null)).toBe(
      true,
    );
  });

  it('refuses a missing, unknown, expired or revoked Bearer token with 401', async () => {
    expect((await call('/users', { bearer: null })).res.status).toBe(401);
    expect((await call('/users', { bearer: 'nope' })).res.status).toBe(401);
    const { res } = await call('/users', { headers: { authorization: `Token ${token}` }, bearer: null });
    expect(res.status).toBe(401);
    fake.expireAccessTokens();
    const expired = await call('/users');
    expect(expired.res.status).toBe(401);
    expect(expired.res.headers.get('www-authenticate')).toContain('invalid_token');
  });

  it('"Missing → 403 unauthorizedOauthScope", also for an included resource', async () => {
    token = fake.issueTokens({ scopes: ['sequenceStates.read'] }).access_token;
    expect((await call('/sequenceStates')).res.status).toBe(200);
    for (const path of ['/prospects', '/sequenceStates?include=prospect']) {
      const { res, body } = await call(path);
      expect(res.status).toBe(403);
      expect(body.errors![0]).toMatchObject({ id: 'unauthorizedOauthScope' });
    }
  });

  it('pages with page[size] (default 50, max 1000) and opaque links.next until absent', async () => {
    const first = await call('/prospects');
    expect(first.body.data).toHaveLength(30);
    expect(first.body.links.next).toBeUndefined();

    const ids: number[] = [];
    let url: string | undefined = `${fake.apiUrl}/prospects?page[size]=7&sort=-updatedAt`;
    let pages = 0;
    while (url) {
      const { body } = await call(url.slice(fake.apiUrl.length));
      ids.push(...body.data.map((d) => d.id));
      url = body.links.next;
      pages++;
    }
    expect(pages).toBe(5);
    expect(new Set(ids).size).toBe(30);

    for (const size of ['0', '1001', 'ten']) {
      const { res, body } = await call(`/prospects?page[size]=${size}`);
      expect(res.status).toBe(422);
      expect(body.errors![0]).toMatchObject({ id: 'validationError', source: { parameter: 'page[size]' } });
    }
    expect((await call('/prospects?page[number]=2')).res.status).toBe(422);
    expect((await call('/prospects?page[size]=5&page[after]=garbage')).res.status).toBe(422);
  });

  it('filters by id list, relationship id and updatedAt range; sorts; rejects unknown fields', async () => {
    const byId = await call('/prospects?filter[id]=1001,1003,1005');
    expect(byId.body.data.map((d) => d.id)).toEqual([1001, 1003, 1005]);

    const bySeq = await call('/sequenceSteps?filter[sequence][id]=201');
    expect(bySeq.body.data.map((d) => d.attributes.order)).toEqual([1, 2, 3, 4, 5]);

    const changed = fake.mutate('prospect', 1002, { title: 'CEO' });
    const recent = await call(`/prospects?filter[updatedAt]=${changed}..inf&sort=updatedAt`);
    expect(recent.body.data.map((d) => [d.id, d.attributes.title])).toEqual([[1002, 'CEO']]);

    const newestFirst = await call('/prospects?sort=-updatedAt&page[size]=1');
    expect(newestFirst.body.data[0]!.id).toBe(1002);

    expect((await call('/prospects?filter[shoeSize]=9')).res.status).toBe(422);
    expect((await call('/prospects?sort=shoeSize')).res.status).toBe(422);
    expect((await call('/prospects?filter[updatedAt]=yesterday..inf')).res.status).toBe(422);
    expect((await call('/prospects?utm=1')).res.status).toBe(422);
  });

  it('include=prospect,sequenceStep gives a compound document with each resource once', async () => {
    const { body } = await call('/sequenceStates?include=prospect,sequenceStep&filter[sequence][id]=201');
    const keys = body.included!.map((r) => `${r.type}:${r.id}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.filter((k) => k.startsWith('prospect:'))).toHaveLength(body.data.length);
    expect(keys.some((k) => k.startsWith('sequenceStep:'))).toBe(true);
    expect((await call('/sequenceStates?include=mailbox')).res.status).toBe(422);
  });

  it('writes need Content-Type application/vnd.api+json (415 unsupportedMediaType) and a write scope', async () => {
    const patch = { data: { type: 'prospect', id: 1001, attributes: { title: 'COO' } } };
    const json = await call('/prospects/1001', {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(patch),
    });
    expect(json.res.status).toBe(415);
    expect(json.body.errors![0]!.id).toBe('unsupportedMediaType');

    const init = {
      method: 'PATCH',
      headers: { 'content-type': 'application/vnd.api+json' },
      body: JSON.stringify(patch),
    };
    token = fake.issueTokens({ scopes: ['prospects.read'] }).access_token;
    expect((await call('/prospects/1001', init)).res.status).toBe(403);
    token = fake.issueTokens({ scopes: ['prospects.all'] }).access_token;
    const before = fake.get('prospect', 1001)!.updatedAt as string;
    const ok = await call('/prospects/1001', init);
    expect(ok.res.status).toBe(200);
    expect(fake.get('prospect', 1001)).toMatchObject({ title: 'COO' });
    expect((fake.get('prospect', 1001)!.updatedAt as string) > before).toBe(true);

    const bad = await call('/prospects/1001', {
      ...init,
      body: JSON.stringify({ data: { type: 'prospect', id: 1001, attributes: { shoeSize: 9 } } }),
    });
    expect(bad.res.status).toBe(422);
    expect(bad.body.errors![0]).toMatchObject({
      id: 'validationError',
      source: { pointer: '/data/attributes/shoeSize' },
    });
  });

  it('every request, GETs included, needs Content-Type application/vnd.api+json, else 415 (developer portal, "Content Negotiation")', async () => {
    for (const type of [null, 'application/json', 'application/vnd.api+json; charset=utf-8']) {
      const headers = new Headers({ authorization: `Bearer ${token}` });
      if (type) headers.set('content-type', type);
      const res = await fetch(`${fake.apiUrl}/users`, { headers });
      expect(res.status).toBe(415);
      expect(((await res.json()) as Doc).errors![0]!.id).toBe('unsupportedMediaType');
    }
    expect((await call('/users')).res.status).toBe(200);
  });

  it('a disabled sequence answers enabledAt null (OpenAPI: "or null if currently disabled"); lastUsedAt tells a paused one', async () => {
    const { body } = await call('/sequences?filter[id]=201,203');
    const byId = Object.fromEntries(body.data.map((d) => [d.id, d.attributes]));
    expect(byId[201]).toMatchObject({ enabled: true, enabledAt: expect.any(String) });
    expect(byId[203]).toMatchObject({ enabled: false, enabledAt: null, lastUsedAt: expect.any(String) });
    fake.mutate('sequence', 201, { enabled: false });
    expect(fake.get('sequence', 201)).toMatchObject({ enabled: false, enabledAt: null });
    const draft = fake.addSequence({ name: 'Draft', enabled: false });
    expect(fake.get('sequence', draft.id)).toMatchObject({ enabledAt: null, lastUsedAt: null });
  });

  it('answers 404 resourceNotFound for an unknown id or resource', async () => {
    for (const path of ['/prospects/999999', '/widgets']) {
      const { res, body } = await call(path);
      expect(res.status).toBe(404);
      expect(body.errors![0]!.id).toBe('resourceNotFound');
    }
  });

  it('counts requests per user per hour with X-RateLimit-* headers, then 429 + Retry-After', async () => {
    let clock = Date.UTC(2026, 0, 5, 9, 59, 0);
    const limited = await startFakeOutreach({
      data: { users: [{ id: 1, firstName: 'A', lastName: 'B' }] },
      rateLimitPerHour: 2,
      now: () => clock,
    });
    try {
      const bearer = {
        authorization: `Bearer ${limited.issueTokens().access_token}`,
        'content-type': 'application/vnd.api+json',
      };
      const first = await fetch(`${limited.apiUrl}/users`, { headers: bearer });
      expect(first.headers.get('x-ratelimit-limit')).toBe('2');
      expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
      expect(first.headers.get('x-ratelimit-reset')).toBe(String(Date.UTC(2026, 0, 5, 10) / 1000));
      await fetch(`${limited.apiUrl}/users`, { headers: bearer });
      const over = await fetch(`${limited.apiUrl}/users`, { headers: bearer });
      expect(over.status).toBe(429);
      expect(over.headers.get('retry-after')).toBe('60');
      expect(((await over.json()) as Doc).errors![0]!.id).toBe('rateLimitExceeded');
      clock += 60_000;
      expect((await fetch(`${limited.apiUrl}/users`, { headers: bearer })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('OAuth: validates client, redirect URI and scopes; codes are single-use; refresh rotates', async () => {
    const authorize = (q: Record<string, string>) =>
      fetch(`${fake.authUrl}/oauth/authorize?${new URLSearchParams(q)}`, { redirect: 'manual' });
    const base = {
      client_id: fake.clientId,
      redirect_uri: 'http://127.0.0.1:9/cb',
      response_type: 'code',
      scope: 'users.read prospects.read',
      state: 'xyz',
    };
    expect((await authorize({ ...base, client_id: 'other' })).status).toBe(400);
    expect((await authorize({ ...base, redirect_uri: 'not a url' })).status).toBe(400);
    const badScope = await authorize({ ...base, scope: 'users.read everything.all' });
    expect(new URL(badScope.headers.get('location')!).searchParams.get('error')).toBe('invalid_scope');
    fake.setNextConsent('deny');
    const denied = await authorize(base);
    expect(new URL(denied.headers.get('location')!).searchParams.get('error')).toBe('access_denied');

    const ok = new URL((await authorize(base)).headers.get('location')!);
    expect(ok.searchParams.get('state')).toBe('xyz');
    const tokenCall = (form: Record<string, string>) =>
      fetch(`${fake.authUrl}/oauth/token`, {
        method: 'POST',
        body: new URLSearchParams({ client_id: fake.clientId, client_secret: fake.clientSecret, ...form }),
      });
    const exchange = {
      grant_type: 'authorization_code',
      code: ok.searchParams.get('code')!,
      redirect_uri: base.redirect_uri,
    };
    expect((await tokenCall({ ...exchange, redirect_uri: 'http://127.0.0.1:9/other' })).status).toBe(400);
    const granted = await tokenCall(exchange);
    expect(granted.status).toBe(200);
    const tokens = (await granted.json()) as { refresh_token: string; expires_in: number; scope: string };
    expect(tokens).toMatchObject({
      expires_in: 7200,
      scope: 'users.read prospects.read',
      token_type: 'bearer',
    });
    expect((await tokenCall(exchange)).status).toBe(400);

    const refreshed = await tokenCall({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(refreshed.status).toBe(200);
    const again = await tokenCall({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(await again.json()).toMatchObject({ error: 'invalid_grant' });
    const wrongSecret = await tokenCall({
      grant_type: 'refresh_token',
      refresh_token: ((await refreshed.json()) as { refresh_token: string }).refresh_token,
      client_secret: 'wrong',
    });
    expect(wrongSecret.status).toBe(401);
  });

  it('logs requests and fails the next ones on demand', async () => {
    fake.clearRequests();
    fake.failNext(1, 429, 3);
    const limited = await call('/users?page[size]=2');
    expect(limited.res.status).toBe(429);
    expect(limited.res.headers.get('retry-after')).toBe('3');
    expect((await call('/users?page[size]=2')).res.status).toBe(200);
    expect(fake.requests()).toEqual([
      { method: 'GET', path: '/api/v2/users', query: { 'page[size]': '2' }, status: 429 },
      { method: 'GET', path: '/api/v2/users', query: { 'page[size]': '2' }, status: 200 },
    ]);
  });
});
