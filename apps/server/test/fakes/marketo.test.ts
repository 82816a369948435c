import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { smallSubscription, startFakeMarketo } from './marketo.ts';
import type { FakeMarketo } from './marketo.ts';

/** The fake must behave like Marketo where our adapter depends on it (integrations/API-NOTES.md §6). */

let fake: FakeMarketo;
let token: string;

type Envelope = {
  requestId: string;
  success: boolean;
  result?: Record<string, unknown>[];
  errors?: { code: string; message: string }[];
  warnings?: string[];
  moreResult?: boolean;
  nextPageToken?: string;
};

async function identity(clientId = fake.clientId, clientSecret = fake.clientSecret) {
  const q = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: clientId,
    client_secret: clientSecret,
  });
  return fetch(`${fake.identityUrl}/oauth/token?${q}`);
}

async function call(path: string, bearer: string | null = token) {
  const res = await fetch(`${fake.restUrl}${path}`, {
    headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
  });
  return { res, body: (await res.json()) as Envelope };
}

beforeEach(async () => {
  fake = await startFakeMarketo({ seed: smallSubscription() });
  token = ((await (await identity()).json()) as { access_token: string }).access_token;
});
afterEach(() => fake.close());

describe('fake Marketo', () => {
  it('identity: client credentials give "<uuid>:<region>", the same while valid; bad credentials 401', async () => {
    expect(token).toMatch(/^[0-9a-f-]{36}:ab$/);
    const again = (await (await identity()).json()) as {
      access_token: string;
      expires_in: number;
      scope: string;
    };
    expect(again.access_token).toBe(token);
    expect(again.expires_in).toBeLessThanOrEqual(3600);
    expect(again.scope).toContain('@');
    expect((await identity(fake.clientId, 'wrong')).status).toBe(401);
  });

  it('fails inside an HTTP 200 envelope: 600 missing, 601 invalid, 602 expired', async () => {
    const missing = await call('/v1/lists.json', null);
    expect(missing.res.status).toBe(200);
    expect(missing.body).toMatchObject({ success: false, errors: [{ code: '600' }] });
    expect((await call('/v1/lists.json', 'nope:ab')).body.errors![0]!.code).toBe('601');
    expect(
      (await fetch(`${fake.restUrl}/v1/lists.json?access_token=${token}`).then((r) => r.json())) as Envelope,
    ).toMatchObject({ success: false, errors: [{ code: '600' }] });
    fake.expireTokens();
    expect((await call('/v1/lists.json')).body.errors![0]!.code).toBe('602');
    const fresh = ((await (await identity()).json()) as { access_token: string }).access_token;
    expect(fresh).not.toBe(token);
    expect((await call('/v1/lists.json', fresh)).body.success).toBe(true);

    const old = { id: fake.clientId, secret: fake.clientSecret };
    fake.revokeAccess();
    expect((await call('/v1/lists.json', fresh)).body.errors![0]!.code).toBe('601');
    expect((await identity(old.id, old.secret)).status).toBe(401);
  });

  it('pages lists and list members with batchSize and nextPageToken', async () => {
    const lists = await call('/v1/lists.json?batchSize=2');
    expect(lists.body.result).toHaveLength(2);
    expect(lists.body.moreResult).toBe(true);
    const rest = await call(`/v1/lists.json?batchSize=2&nextPageToken=${lists.body.nextPageToken}`);
    expect(rest.body.result).toHaveLength(1);
    expect(rest.body.nextPageToken).toBeUndefined();

    const newsletter = fake.lists.find((l) => l.name === 'Newsletter')!;
    const ids: unknown[] = [];
    let next: string | undefined;
    do {
      const { body } = await call(
        `/v1/lists/${newsletter.id}/leads.json?batchSize=3&fields=email,firstName,lastName,title,company,updatedAt${next ? `&nextPageToken=${next}` : ''}`,
      );
      ids.push(...body.result!.map((l) => l.id));
      next = body.nextPageToken;
    } while (next);
    expect(ids).toHaveLength(8);
    expect((await call('/v1/lists.json?batchSize=301')).body.errors![0]!.code).toBe('1003');
    expect((await call('/v1/lists/1/leads.json?fields=shoeSize')).body.success).toBe(false);
  });

  it('a deleted lead leaves its lists; its Delete Lead activity pages from a date token, a token each page', async () => {
    const [ann, bo, cy] = fake.leads;
    const since = new Date(Date.now() - 2 * 3_600_000).toISOString();
    for (const lead of [ann!, bo!, cy!]) fake.deleteLead(lead.id);
    expect(fake.lists.some((l) => l.members.includes(ann!.id))).toBe(false);
    const start = await call(`/v1/activities/pagingtoken.json?sinceDatetime=${encodeURIComponent(since)}`);
    expect(start.body).toMatchObject({ success: true, nextPageToken: expect.any(String) });
    const first = await call(
      `/v1/activities/deletedleads.json?batchSize=2&nextPageToken=${start.body.nextPageToken}`,
    );
    expect(first.body.result!.map((a) => [a.leadId, a.activityTypeId])).toEqual([
      [ann!.id, 37],
      [bo!.id, 37],
    ]);
    expect(first.body.moreResult).toBe(true);
    const second = await call(
      `/v1/activities/deletedleads.json?batchSize=2&nextPageToken=${first.body.nextPageToken}`,
    );
    expect(second.body.result!.map((a) => a.leadId)).toEqual([cy!.id]);
    expect(second.body).toMatchObject({ moreResult: false, nextPageToken: expect.any(String) });
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const none = await call(`/v1/activities/pagingtoken.json?sinceDatetime=${encodeURIComponent(later)}`);
    const empty = await call(`/v1/activities/deletedleads.json?nextPageToken=${none.body.nextPageToken}`);
    expect(empty.body).toMatchObject({ success: true, result: [], moreResult: false });
    expect((await call('/v1/activities/deletedleads.json')).body.errors![0]!.code).toBe('1003');
  });

  it('serves leads by filter, static lists by offset with asset timestamps and a warning past the end', async () => {
    const leads = await call(
      '/v1/leads.json?filterType=email&filterValues=ann@globex.example,cy@initech.example&fields=email,title',
    );
    expect(leads.body.result!.map((l) => l.title)).toEqual(['CTO', 'CFO']);
    expect((await call('/v1/leads.json')).body.errors![0]!.code).toBe('1003');

    const assets = await call('/asset/v1/staticLists.json?maxReturn=200');
    expect(assets.body.result).toHaveLength(3);
    expect(String(assets.body.result![0]!.updatedAt)).toMatch(/Z\+0000$/);
    const past = await call('/asset/v1/staticLists.json?offset=3');
    expect(past.body).toMatchObject({ success: true, warnings: [expect.any(String)] });
    expect(past.body.result).toBeUndefined();
  });

  it('answers 606 and 615 on demand and 606 over the 20-second window', async () => {
    fake.failWithRateLimit(1);
    fake.failWithConcurrency(1);
    expect((await call('/v1/lists.json')).body.errors![0]!.code).toBe('606');
    expect((await call('/v1/lists.json')).body.errors![0]!.code).toBe('615');
    expect((await call('/v1/lists.json')).body.success).toBe(true);

    let clock = Date.UTC(2026, 0, 5, 9);
    const limited = await startFakeMarketo({ callsPer20s: 2, now: () => clock });
    try {
      const q = new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: limited.clientId,
        client_secret: limited.clientSecret,
      });
      const t = (
        (await (await fetch(`${limited.identityUrl}/oauth/token?${q}`)).json()) as { access_token: string }
      ).access_token;
      const get = async () =>
        (await (
          await fetch(`${limited.restUrl}/v1/lists.json`, { headers: { authorization: `Bearer ${t}` } })
        ).json()) as Envelope;
      expect((await get()).success).toBe(true);
      expect((await get()).success).toBe(true);
      expect((await get()).errors![0]!.code).toBe('606');
      clock += 20_000;
      expect((await get()).success).toBe(true);
    } finally {
      await limited.close();
    }
  });
});
