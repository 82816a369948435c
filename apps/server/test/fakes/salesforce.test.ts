import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { smallOrg, startFakeSalesforce } from './salesforce.ts';
import type { FakeSalesforce } from './salesforce.ts';

/** The fake must behave like Salesforce where our adapter depends on it (integrations/API-NOTES.md §5). */

const REDIRECT = 'http://localhost:3999/v1/integration/crm/salesforce/callback';
let fake: FakeSalesforce;

type QueryReply = {
  totalSize: number;
  done: boolean;
  nextRecordsUrl?: string;
  records: { attributes: { type: string; url: string }; Id: string; IsDeleted?: boolean }[];
};
type TokenReply = { access_token: string; refresh_token?: string; instance_url: string; expires_in?: number };
type SfErrors = { message: string; errorCode: string; fields?: string[] }[];

async function tokenCall(form: Record<string, string>) {
  const res = await fetch(`${fake.authUrl}/services/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: fake.clientId, client_secret: fake.clientSecret, ...form }),
  });
  return { status: res.status, body: (await res.json()) as TokenReply & { error?: string } };
}

/** The web-server flow: authorize (a 302 back with code and state), then the code for tokens. */
async function connect() {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: fake.clientId,
    redirect_uri: REDIRECT,
    state: 'st-1',
  });
  const consent = await fetch(`${fake.authUrl}/services/oauth2/authorize?${q}`, { redirect: 'manual' });
  expect(consent.status).toBe(302);
  const back = new URL(consent.headers.get('location')!);
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
  expect(back.searchParams.get('state')).toBe('st-1');
  const code = back.searchParams.get('code')!;
  const tokens = await tokenCall({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT });
  expect(tokens.status).toBe(200);
  return { code, ...tokens.body };
}

async function api(path: string, accessToken: string) {
  const res = await fetch(`${fake.authUrl}${path}`, { headers: { authorization: `Bearer ${accessToken}` } });
  return { status: res.status, body: (await res.json()) as unknown };
}
const query = (soql: string, all = false) =>
  `/services/data/${fake.apiVersion}/${all ? 'queryAll' : 'query'}?${new URLSearchParams({ q: soql })}`;

beforeEach(async () => {
  fake = await startFakeSalesforce({ batchSize: 2, seed: smallOrg() });
});
afterEach(() => fake.close());

describe('fake Salesforce', () => {
  it('OAuth: the code is single-use; a refresh gives a new session and no new refresh token, nor expires_in', async () => {
    const first = await connect();
    expect(first).toMatchObject({ instance_url: fake.authUrl, refresh_token: expect.any(String) });
    expect(first.expires_in).toBeUndefined();
    const again = await tokenCall({
      grant_type: 'authorization_code',
      code: first.code,
      redirect_uri: REDIRECT,
    });
    expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const refreshed = await tokenCall({ grant_type: 'refresh_token', refresh_token: first.refresh_token! });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.access_token).not.toBe(first.access_token);
    expect(refreshed.body.refresh_token).toBeUndefined();
  });

  it('pages a query by its relative nextRecordsUrl until done; query leaves deleted rows out, queryAll keeps them', async () => {
    const { access_token: token } = await connect();
    for (let i = 0; i < 3; i++) fake.add('Contact', { LastName: `Paged ${i}`, Email: `p${i}@x.example` });
    const gone = fake.add('Contact', { LastName: 'Gone', Email: 'gone@x.example' });
    fake.remove('Contact', gone.Id);
    const walk = async (all: boolean) => {
      const ids: { Id: string; IsDeleted?: boolean }[] = [];
      let path: string | undefined = query(
        'SELECT Id, IsDeleted FROM Contact ORDER BY SystemModstamp ASC',
        all,
      );
      let pages = 0;
      while (path) {
        const { status, body } = await api(path, token);
        expect(status).toBe(200);
        const reply = body as QueryReply;
        expect(reply.records.length).toBeLessThanOrEqual(2);
        ids.push(...reply.records.map((r) => ({ Id: r.Id, IsDeleted: r.IsDeleted })));
        pages += 1;
        if (!reply.done)
          expect(reply.nextRecordsUrl).toMatch(new RegExp(`^/services/data/${fake.apiVersion}/query/`));
        path = reply.done ? undefined : reply.nextRecordsUrl;
      }
      return { ids, pages };
    };
    const live = await walk(false);
    const everything = await walk(true);
    expect(live.ids.map((r) => r.Id)).not.toContain(gone.Id);
    expect(everything.ids).toContainEqual({ Id: gone.Id, IsDeleted: true });
    expect(everything.ids).toHaveLength(live.ids.length + 1);
    expect(live.pages).toBe(Math.ceil(live.ids.length / 2));
  });

  it('401 INVALID_SESSION_ID for an expired session; 403 REQUEST_LIMIT_EXCEEDED when over the limit; 400 INVALID_FIELD', async () => {
    const { access_token: token } = await connect();
    const soql = query('SELECT Id FROM Account');
    fake.failWithLimit(1);
    const limited = await api(soql, token);
    expect(limited.status).toBe(403);
    expect((limited.body as SfErrors)[0]).toMatchObject({ errorCode: 'REQUEST_LIMIT_EXCEEDED' });
    expect((await api(soql, token)).status).toBe(200);
    const field = await api(query('SELECT Id, ShoeSize FROM Account'), token);
    expect(field.status).toBe(400);
    expect((field.body as SfErrors)[0]!.errorCode).toBe('INVALID_FIELD');
    fake.expireSessions();
    const expired = await api(soql, token);
    expect(expired.status).toBe(401);
    expect((expired.body as SfErrors)[0]).toMatchObject({ errorCode: 'INVALID_SESSION_ID' });
  });
});
