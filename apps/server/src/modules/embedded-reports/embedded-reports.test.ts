import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { embeddedReports } from '../../db/schema/index.ts';
import { hashToken } from '../../lib/crypto.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { Browser, signedIn } from '../../../test/http.ts';
import { fieldsOf, standardScene } from '../../../test/reports-world.ts';
import { EMBED_MISSES_PER_WINDOW } from './routes.ts';

const DAY = 86_400_000;

/**
 * Embedded reports (SPEC.md §7 "GET /rest/reports/embedded[/{id}]; GET and POST
 * /rest/client/{id}/reports/embedded"; issue 17): a saved report shared as an expiring, read-only
 * link, read without a session by its token; only the token's hash is stored.
 */
describe('embedded reports', async () => {
  const app = await createTestApp();
  const scene = await standardScene(app, 'Embedco');
  const clientId = scene.clientId;
  const foreign = await standardScene(app, 'Foreignco');
  const { browser: owner } = await signedIn(app, { [clientId]: 'purple_owner' });
  const { browser: sdr } = await signedIn(app, { [clientId]: 'yellow_sdr' });
  const { browser: viewer } = await signedIn(app, { [clientId]: 'grey_viewer' });
  const { browser: foreignOwner } = await signedIn(app, { [foreign.clientId]: 'purple_owner' });
  const url = `/v1/rest/client/${clientId}/reports/embedded`;
  const anonymous = () => new Browser(app);
  const open = (token: string, path = '/v1/rest/reports/embedded') =>
    anonymous().get(path, { headers: { 'x-embed-token': token } });

  async function create(body: Record<string, unknown> = {}) {
    const res = await owner.post(url, { name: 'Board summary', report: 'summary', ...body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; token: string; url: string; status: string; expires_at: string };
  }

  it('creates a link whose token is shown once and stored only as its hash', async () => {
    const before = Date.now();
    const created = await create({ range_days: 30, expires_in_days: 7 });
    expect(created).toMatchObject({
      name: 'Board summary',
      report: 'summary',
      range_days: 30,
      status: 'active',
    });
    expect(created.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(created.url).toMatch(new RegExp(`/embed/reports#${created.token}$`));
    const expires = new Date(created.expires_at).getTime();
    expect(expires).toBeGreaterThanOrEqual(before + 7 * DAY - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 7 * DAY);

    const [row] = await app.db.select().from(embeddedReports).where(eq(embeddedReports.id, created.id));
    expect(row!.tokenHash).toBe(hashToken(created.token));
    expect(JSON.stringify(row)).not.toContain(created.token);

    // The list never shows the token; an SDR (reports.read) may list.
    const list = await sdr.get(url);
    expect(list.statusCode, list.body).toBe(200);
    const item = list.json().items.find((i: { id: string }) => i.id === created.id);
    expect(item).toMatchObject({ name: 'Board summary', status: 'active', views: 0 });
    expect(item.created_by).toBeTruthy();
    expect(list.body).not.toContain(created.token);
  });

  it('shows the saved report to anyone with the token, without a session, and counts the view', async () => {
    const created = await create({ range_days: 60 });
    const res = await open(created.token);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const view = res.json();
    expect(view).toMatchObject({
      id: created.id,
      name: 'Board summary',
      client_name: 'Embedco',
      report: 'summary',
    });
    // The same numbers as the summary call over the last 60 days (the standard scene's engagement).
    const to = Math.floor(Date.now() / 1000);
    const direct = await owner.get(`/v1/report/client/${clientId}/summary?from=${to - 60 * 86_400}&to=${to}`);
    const { range: _r, ...numbers } = direct.json();
    const { range: _v, ...embedded } = view.data.summary;
    expect(embedded).toEqual(numbers);
    expect(view.data.summary.impressions).toBe(4);

    // The token in the query works too, and by the report's id.
    const byQuery = await anonymous().get(`/v1/rest/reports/embedded?token=${created.token}`);
    expect(byQuery.statusCode, byQuery.body).toBe(200);
    const byId = await open(created.token, `/v1/rest/reports/embedded/${created.id}`);
    expect(byId.statusCode, byId.body).toBe(200);

    const list = await owner.get(url);
    const item = list.json().items.find((i: { id: string }) => i.id === created.id);
    expect(item.views).toBe(3);
    expect(item.last_viewed_at).toBeTruthy();
  });

  it('shows pipeline and value reports', async () => {
    for (const report of ['value_report', 'pipeline_generated', 'pipeline_progressed'] as const) {
      const created = await create({ report, name: report });
      const res = await open(created.token);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.kind).toBe(report);
      expect(res.json().data[report]).toBeTruthy();
    }
  });

  it('refuses bad input naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: '' }, 'body.name'],
      [{ name: 'x'.repeat(121) }, 'body.name'],
      [{ report: 'everything' }, 'body.report'],
      [{ expires_in_days: 0 }, 'body.expires_in_days'],
      [{ expires_in_days: 91 }, 'body.expires_in_days'],
      [{ range_days: 366 }, 'body.range_days'],
      [{ range_days: 1.5 }, 'body.range_days'],
    ];
    for (const [body, field] of cases) {
      const res = await owner.post(url, { name: 'A', report: 'summary', ...body });
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(fieldsOf(res)).toContain(field);
    }
    const badToken = await anonymous().get('/v1/rest/reports/embedded?token=short');
    expect(badToken.statusCode).toBe(422);
    expect(fieldsOf(badToken)).toContain('querystring.token');
    const badId = await open('a'.repeat(43), '/v1/rest/reports/embedded/not-a-uuid');
    expect(badId.statusCode).toBe(422);
    expect(fieldsOf(badId)).toContain('params.id');
  });

  it('needs a session (401) to list, create and revoke, and a token to view', async () => {
    const created = await create();
    expect((await anonymous().get(url, { clientId } as never)).statusCode).toBe(401);
    const b = anonymous();
    b.clientId = clientId;
    expect((await b.post(url, { name: 'A', report: 'summary' })).statusCode).toBe(401);
    expect((await b.delete(`${url}/${created.id}`)).statusCode).toBe(401);
    // Without a token: a 422 naming it, not a 401 (which would tell a signed-in app its session ended).
    const none = await anonymous().get('/v1/rest/reports/embedded');
    expect(none.statusCode).toBe(422);
    expect(fieldsOf(none)).toEqual(['headers.x-embed-token']);
  });

  it('needs settings.write to create and revoke, reports.read to list', async () => {
    const created = await create();
    const sdrCreate = await sdr.post(url, { name: 'A', report: 'summary' });
    expect(sdrCreate.statusCode).toBe(403);
    expect(sdrCreate.json().message).toMatch(/settings\.write/);
    expect((await sdr.delete(`${url}/${created.id}`)).statusCode).toBe(403);
    const viewerList = await viewer.get(url);
    expect(viewerList.statusCode).toBe(403);
    expect(viewerList.json().message).toMatch(/reports\.read/);
  });

  it("never lists, revokes or shows another tenant's links or data", async () => {
    const mine = await create();
    // The foreign owner cannot name our client, nor revoke our link through theirs.
    expect((await foreignOwner.get(url, { clientId })).statusCode).toBe(403);
    const foreignUrl = `/v1/rest/client/${foreign.clientId}/reports/embedded`;
    expect((await foreignOwner.delete(`${foreignUrl}/${mine.id}`)).statusCode).toBe(404);
    expect((await open(mine.token)).statusCode).toBe(200);
    const theirs = await foreignOwner.post(foreignUrl, { name: 'Theirs', report: 'summary' });
    expect(theirs.statusCode, theirs.body).toBe(201);
    expect((await foreignOwner.get(foreignUrl)).json().items.map((i: { id: string }) => i.id)).toEqual([
      theirs.json().id,
    ]);
    // Their token shows their client; with our report's id it is an invalid link.
    const view = await open(theirs.json().token);
    expect(view.json().client_name).toBe('Foreignco');
    const crossed = await open(theirs.json().token, `/v1/rest/reports/embedded/${mine.id}`);
    expect(crossed.statusCode).toBe(404);
    expect(crossed.json().message).toMatch(/Invalid link/);
  });

  it('answers 410 once revoked or expired, 404 for an unknown token', async () => {
    const created = await create();
    const revoked = await owner.delete(`${url}/${created.id}`);
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect(revoked.json()).toMatchObject({ status: 'revoked' });
    const gone = await open(created.token);
    expect(gone.statusCode).toBe(410);
    expect(gone.json().message).toMatch(/revoked/);
    expect((await owner.delete(`${url}/${crypto.randomUUID()}`)).statusCode).toBe(404);

    const old = await create({ expires_in_days: 1 });
    await app.db
      .update(embeddedReports)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(embeddedReports.id, old.id));
    const expired = await open(old.token);
    expect(expired.statusCode).toBe(410);
    expect(expired.json().message).toMatch(/expired/);
    expect((await owner.get(url)).json().items.find((i: { id: string }) => i.id === old.id).status).toBe(
      'expired',
    );

    const unknown = await open('b'.repeat(43));
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().message).toMatch(/Invalid link/);
  });

  it('refuses an address that guesses too many tokens, but still serves it a right one (issue 37)', async () => {
    const created = await create();
    const from = (token: string) =>
      app.inject({
        url: '/v1/rest/reports/embedded',
        headers: { 'x-embed-token': token },
        remoteAddress: '203.0.113.9',
      });
    for (let i = 0; i < EMBED_MISSES_PER_WINDOW; i++) {
      expect((await from(`${String(i).padStart(3, '0')}${'c'.repeat(40)}`)).statusCode).toBe(404);
    }
    const refused = await from('d'.repeat(43));
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBeTruthy();
    // An office behind one NAT address: a colleague's valid link still opens.
    const served = await from(created.token);
    expect(served.statusCode, served.body).toBe(200);
    expect(served.json()).toMatchObject({ id: created.id });
    // And the misses stay refused.
    expect((await from('e'.repeat(43))).statusCode).toBe(429);
    // Another address is not affected.
    expect((await open('f'.repeat(43))).statusCode).toBe(404);
  });

  it('concurrently: exactly the limit of misses is answered 404, the rest 429, and every valid token 200', async () => {
    const created = await create();
    const address = '198.51.100.77';
    const from = (token: string) =>
      app.inject({ url: `/v1/rest/reports/embedded?token=${token}`, remoteAddress: address });
    const misses = Array.from({ length: EMBED_MISSES_PER_WINDOW * 2 }, (_, i) =>
      from(`${String(i).padStart(4, '0')}${'g'.repeat(39)}`),
    );
    const hits = Array.from({ length: 20 }, () => from(created.token));
    const [missed, served] = await Promise.all([Promise.all(misses), Promise.all(hits)]);
    const count = (list: { statusCode: number }[], code: number) =>
      list.filter((r) => r.statusCode === code).length;
    expect(count(missed, 404)).toBe(EMBED_MISSES_PER_WINDOW);
    expect(count(missed, 429)).toBe(EMBED_MISSES_PER_WINDOW);
    expect(served.map((r) => r.statusCode)).toEqual(served.map(() => 200));
  });
});

/**
 * Issue 37 item 10: the token of a link opened by `?token=` is written to no log line of its
 * request (incoming request, completion, errors), whatever the answer; nor are the other secrets that
 * travel in URLs (sign-in links, resets, invitations).
 */
describe('embedded report tokens in the logs', async () => {
  const lines: string[] = [];
  const app = await createTestApp({
    env: { LOG_LEVEL: 'trace' },
    logStream: { write: (line: string) => void lines.push(line) },
  });
  const clientId = (await standardScene(app, 'Logco')).clientId;
  const { browser: owner } = await signedIn(app, { [clientId]: 'purple_owner' });

  it('no log line holds the token, for a served, an unknown, a revoked link or a failing request', async () => {
    const made = async () => {
      const res = await owner.post(`/v1/rest/client/${clientId}/reports/embedded`, {
        name: 'Logged',
        report: 'summary',
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json() as { id: string; token: string };
    };
    const served = await made();
    const revoked = await made();
    expect(
      (await owner.delete(`/v1/rest/client/${clientId}/reports/embedded/${revoked.id}`)).statusCode,
    ).toBe(200);
    const failing = await made();
    const unknown = 'h'.repeat(43);
    const tokens = [served.token, revoked.token, unknown, failing.token];
    lines.length = 0;

    const get = (url: string) => app.inject({ url, remoteAddress: '192.0.2.44' });
    expect((await get(`/v1/rest/reports/embedded?token=${served.token}`)).statusCode).toBe(200);
    expect((await get(`/v1/rest/reports/embedded/${served.id}?token=${served.token}&x=1`)).statusCode).toBe(
      200,
    );
    expect((await get(`/v1/rest/reports/embedded?token=${revoked.token}`)).statusCode).toBe(410);
    expect((await get(`/v1/rest/reports/embedded?token=${unknown}`)).statusCode).toBe(404);
    // A bad id beside the token (422), the key spelt percent-encoded, and an unknown path.
    expect((await get(`/v1/rest/reports/embedded/nope?token=${served.token}`)).statusCode).toBe(422);
    expect((await get(`/v1/rest/reports/embedded?t%6Fken=${served.token}`)).statusCode).toBe(200);
    expect((await get(`/v1/rest/reports/embedded-typo?token=${served.token}`)).statusCode).toBe(404);
    // A server error while the token is being looked up: the error's lines hold no token either.
    await app.database.execute('alter table embedded_reports rename to embedded_reports_away');
    try {
      expect((await get(`/v1/rest/reports/embedded?token=${failing.token}`)).statusCode).toBe(500);
    } finally {
      await app.database.execute('alter table embedded_reports_away rename to embedded_reports');
    }
    // Sign-in links, resets and invitations carry their secrets in URLs too.
    await get(`/?token=${served.token}`);
    await get(`/reset-password?hash=${served.token}`);
    await get(`/v1/api/user_request/${served.token}`);

    const text = lines.join('');
    expect(lines.length).toBeGreaterThan(20);
    const leaking = lines.filter((l) => tokens.some((t) => l.includes(t)));
    expect(leaking, `${leaking.length} of ${lines.length} log lines hold a token`).toEqual([]);
    // The lines are there (the request was logged, with its path), only the secret is not.
    expect(text).toContain('/v1/rest/reports/embedded?token=[redacted]');
    expect(text).toMatch(/"level":50.*request failed/);
  });
});
