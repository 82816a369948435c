import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Suppression } from '@rally/shared/schemas/suppressions';
import { createTestApp } from '../../../test/helpers.ts';
import { makeClient, signedIn } from '../../../test/http.ts';
import type { Browser } from '../../../test/http.ts';

/**
 * The suppression list API (issue 44): list (paged), add one, upload a CSV, export CSV, remove with
 * a reason. Each with success, bad input (422 naming the field), a role without settings.write
 * (403) and another client's entry or client (403/404).
 */
let app: FastifyInstance;
let acme: string;
let other: string;
let owner: Browser;
let admin: Browser;
let manager: Browser;
let stranger: Browser;
const url = (client = acme) => `/v1/rest/client/${client}/suppressions`;

async function multipart(file: string, fields: Record<string, string> = {}) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([file], { type: 'text/csv' }), 'list.csv');
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return {
    payload: Buffer.from(await request.arrayBuffer()),
    headers: { 'content-type': request.headers.get('content-type')! },
  };
}

beforeAll(async () => {
  app = await createTestApp();
  acme = await makeClient(app, 'Acme');
  other = await makeClient(app, 'Other');
  owner = (await signedIn(app, { [acme]: 'purple_owner' })).browser;
  admin = (await signedIn(app, { [acme]: 'blue_admin' })).browser;
  manager = (await signedIn(app, { [acme]: 'green_manager' })).browser;
  stranger = (await signedIn(app, { [other]: 'purple_owner' })).browser;
}, 60_000);
afterAll(() => app.close());

describe('POST /rest/client/{id}/suppressions', () => {
  it('adds one address (201), keeps one entry per person (200 the second time), names a bad field (422)', async () => {
    const first = await owner.post(url(), { email: ' Ann@Example.com ', reason: 'Asked by phone' });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({
      created: true,
      suppression: {
        email: 'ann@example.com',
        source: 'manual',
        reason: 'Asked by phone',
        created_by_name: 'Test User',
      },
    });
    const again = await admin.post(url(), { email: 'ann@example.com' });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ created: false });
    expect(await app.suppressions.isSuppressed(acme, 'ANN@example.com')).toBe(true);
    expect(await app.suppressions.isSuppressed(other, 'ann@example.com')).toBe(false);

    const bad = await owner.post(url(), { email: 'not an address' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('body.email');
  });

  it('is refused without settings.write (403) and for another client (403 on the path)', async () => {
    expect((await manager.post(url(), { email: 'x@example.com' })).statusCode).toBe(403);
    expect((await stranger.post(url(acme), { email: 'x@example.com' }, { clientId: acme })).statusCode).toBe(
      403,
    );
    expect(await app.suppressions.isSuppressed(acme, 'x@example.com')).toBe(false);
  });
});

describe('GET /rest/client/{id}/suppressions', () => {
  it('pages newest first with a cursor and a total; searches; 422 for a bad limit; 403 for a manager', async () => {
    for (const n of [1, 2, 3]) await owner.post(url(), { email: `page${n}@example.com` });
    const first = await owner.get(`${url()}?limit=2&q=page`);
    expect(first.statusCode).toBe(200);
    const body = first.json() as { items: Suppression[]; total: number; next_cursor: string | null };
    expect(body.total).toBe(3);
    expect(body.items.map((i) => i.email)).toEqual(['page3@example.com', 'page2@example.com']);
    const second = (await owner.get(`${url()}?limit=2&q=page&cursor=${body.next_cursor}`)).json();
    expect(second.items.map((i: Suppression) => i.email)).toEqual(['page1@example.com']);
    expect(second.next_cursor).toBeNull();

    const bad = await owner.get(`${url()}?limit=0`);
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('querystring.limit');
    expect((await manager.get(url())).statusCode).toBe(403);
    // Another client's list shows none of these.
    const theirs = (await stranger.get(url(other), { clientId: other })).json();
    expect(theirs.total).toBe(0);
  });
});

describe('POST /rest/client/{id}/suppressions/upload', () => {
  it('adds the addresses of a CSV with an email column, reports the bad lines and those already there', async () => {
    const { payload, headers } = await multipart(
      'Name,Email\nAnn,ann@example.com\nBo,bo@example.com\nCy,not-an-address\nDi,di@example.com\n',
    );
    const res = await owner.post(`${url()}/upload`, payload, { headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      added: 2,
      already: 1,
      invalid_count: 1,
      invalid: [{ line: 4, value: 'not-an-address' }],
    });
    expect(await app.suppressions.isSuppressed(acme, 'bo@example.com')).toBe(true);
  });

  it('names the file part when it is missing or empty (422), wants multipart (415), 403 for a manager', async () => {
    const form = new FormData();
    form.append('reason', 'x');
    const request = new Request('http://localhost/', { method: 'POST', body: form });
    const noFile = await owner.post(`${url()}/upload`, Buffer.from(await request.arrayBuffer()), {
      headers: { 'content-type': request.headers.get('content-type')! },
    });
    expect(noFile.statusCode).toBe(422);
    expect(noFile.json().errors[0].field).toBe('body.file');
    const empty = await multipart('');
    const emptyRes = await owner.post(`${url()}/upload`, empty.payload, { headers: empty.headers });
    expect(emptyRes.statusCode).toBe(422);
    expect(emptyRes.json().errors[0].field).toBe('body.file');
    expect((await owner.post(`${url()}/upload`, { file: 'x' })).statusCode).toBe(415);
    const ok = await multipart('z@example.com\n');
    expect((await manager.post(`${url()}/upload`, ok.payload, { headers: ok.headers })).statusCode).toBe(403);
  });
});

describe('GET /rest/client/{id}/suppressions/export.csv', () => {
  it('exports every entry with formula-like cells quoted; 403 for a manager and for another client', async () => {
    await owner.post(url(), { email: 'csv@example.com', reason: '=cmd|calc' });
    const res = await owner.get(`${url()}/export.csv`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    expect(res.body.split('\r\n')[0]).toBe(
      'email,source,reason,added_by,added_at,removed_at,removed_by,removed_reason',
    );
    expect(res.body).toContain("csv@example.com,manual,'=cmd|calc");
    expect((await manager.get(`${url()}/export.csv`)).statusCode).toBe(403);
    expect((await owner.get(`${url(other)}/export.csv`, { clientId: other })).statusCode).toBe(403);
    expect((await owner.get(`${url(other)}/export.csv`)).statusCode).toBe(403);
  });
});

describe('POST /rest/client/{id}/suppressions/{id}/remove', () => {
  it("removes with a reason, kept as history; 422 without a reason; 404 for another client's entry; 403 for a manager", async () => {
    const added = (await owner.post(url(), { email: 'gone@example.com' })).json().suppression as Suppression;
    const theirs = (
      await stranger.post(url(other), { email: 'theirs@example.com' }, { clientId: other })
    ).json().suppression as Suppression;

    const noReason = await owner.post(`${url()}/${added.id}/remove`, { reason: ' ' });
    expect(noReason.statusCode).toBe(422);
    expect(noReason.json().errors[0].field).toBe('body.reason');
    expect((await manager.post(`${url()}/${added.id}/remove`, { reason: 'x' })).statusCode).toBe(403);
    expect((await owner.post(`${url()}/${theirs.id}/remove`, { reason: 'x' })).statusCode).toBe(404);
    expect((await owner.post(`${url()}/abc/remove`, { reason: 'x' })).statusCode).toBe(422);
    expect(await app.suppressions.isSuppressed(other, 'theirs@example.com')).toBe(true);

    const removed = await owner.post(`${url()}/${added.id}/remove`, { reason: 'Added by mistake' });
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toMatchObject({
      removed_reason: 'Added by mistake',
      removed_by_name: 'Test User',
    });
    expect(await app.suppressions.isSuppressed(acme, 'gone@example.com')).toBe(false);
    expect((await owner.post(`${url()}/${added.id}/remove`, { reason: 'again' })).statusCode).toBe(404);
    const history = (await owner.get(`${url()}?state=removed`)).json();
    expect(history.items.map((i: Suppression) => i.email)).toContain('gone@example.com');
    // Suppressed again later: a new entry in force, the history stays.
    expect((await owner.post(url(), { email: 'gone@example.com' })).statusCode).toBe(201);
  });
});

describe('suppress() for other modules (the erasure helper)', () => {
  it('keeps only the hash for an erasure, and drops the address from an entry already in force', async () => {
    await app.suppressions.suppress(acme, 'erased@example.com', {
      source: 'erasure',
      reason: 'Erased',
      by: null,
    });
    await app.suppressions.suppress(acme, 'ann@example.com', { source: 'erasure', by: null });
    const list = (await owner.get(`${url()}?limit=200`)).json().items as Suppression[];
    expect(list.filter((i) => i.email === 'ann@example.com')).toHaveLength(0);
    expect(list.filter((i) => i.source === 'erasure' && i.email === null)).toHaveLength(1);
    expect(await app.suppressions.isSuppressed(acme, 'erased@example.com')).toBe(true);
    expect(await app.suppressions.isSuppressed(acme, 'ann@example.com')).toBe(true);
  });
});
