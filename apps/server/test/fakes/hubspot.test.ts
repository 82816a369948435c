import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { smallPortal, startFakeHubSpot } from './hubspot.ts';
import type { FakeHubSpot } from './hubspot.ts';

/** The fake must behave like HubSpot where our adapter depends on it (integrations/API-NOTES.md §4). */

let fake: FakeHubSpot;
let token: string;

beforeEach(async () => {
  fake = await startFakeHubSpot({ seed: smallPortal() });
  token = fake.issueTokens().access_token;
});
afterEach(() => fake.close());

type Page = {
  results: { id: string; properties: Record<string, string | null>; [k: string]: unknown }[];
  paging?: { next: { after: string; link: string } };
  total?: number;
  status?: string;
  category?: string;
  errorType?: string;
  policyName?: string;
};

async function call(path: string, init: RequestInit & { bearer?: string | null } = {}) {
  const headers = new Headers(init.headers);
  if (init.bearer !== null) headers.set('authorization', `Bearer ${init.bearer ?? token}`);
  const res = await fetch(`${fake.apiUrl}${path}`, { ...init, headers });
  return { res, body: (await res.json()) as Page };
}

describe('fake HubSpot', () => {
  it('OAuth: authorize redirects with code and state; the code is single-use; refresh keeps the refresh token', async () => {
    const redirectUri = 'http://127.0.0.1:9/cb';
    const auth = await fetch(
      `${fake.authUrl}/oauth/authorize?${new URLSearchParams({
        client_id: fake.clientId,
        redirect_uri: redirectUri,
        scope: 'oauth crm.objects.deals.read',
        state: 's1',
      })}`,
      { redirect: 'manual' },
    );
    expect(auth.status).toBe(302);
    const back = new URL(auth.headers.get('location')!);
    expect(back.searchParams.get('state')).toBe('s1');
    const form = (f: Record<string, string>) =>
      fetch(`${fake.apiUrl}/oauth/2026-03/token`, {
        method: 'POST',
        body: new URLSearchParams({ client_id: fake.clientId, client_secret: fake.clientSecret, ...f }),
      });
    const exchange = {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: redirectUri,
    };
    const granted = await form(exchange);
    const tokens = (await granted.json()) as {
      access_token: string;
      refresh_token: string;
      expires_in: number;
    };
    expect(tokens.expires_in).toBe(1800);
    expect(((await (await form(exchange)).json()) as { status: string }).status).toBe('BAD_AUTH_CODE');

    const introspect = (token: string) =>
      fetch(`${fake.apiUrl}/oauth/2026-03/token/introspect`, {
        method: 'POST',
        body: new URLSearchParams({ client_id: fake.clientId, client_secret: fake.clientSecret, token }),
      }).then((r) => r.json());
    expect(await introspect(tokens.access_token)).toMatchObject({
      active: true,
      hub_id: fake.hubId,
      scopes: ['oauth', 'crm.objects.deals.read'],
    });
    expect(await introspect('nonsense')).toEqual({ active: false });
    // The deprecated v1 token-info endpoint is not served.
    expect((await fetch(`${fake.apiUrl}/oauth/v1/access-tokens/${tokens.access_token}`)).status).toBe(404);
    // Only the deals scope was granted.
    expect((await call('/crm/v3/objects/contacts', { bearer: tokens.access_token })).res.status).toBe(403);

    fake.expireAccessTokens();
    const expired = await call('/crm/v3/objects/deals', { bearer: tokens.access_token });
    expect(expired.res.status).toBe(401);
    expect(expired.body.category).toBe('EXPIRED_AUTHENTICATION');
    const refreshed = await form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    const again = (await refreshed.json()) as { access_token: string; refresh_token: string };
    expect(again.refresh_token).toBe(tokens.refresh_token);
    expect((await call('/crm/v3/objects/deals', { bearer: again.access_token })).res.status).toBe(200);

    fake.revokeAccess();
    expect((await call('/crm/v3/objects/deals', { bearer: again.access_token })).res.status).toBe(401);
    const bad = await form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { status: string }).status).toBe('BAD_REFRESH_TOKEN');
  });

  it('pages objects with limit and paging.next.after until no paging; string properties', async () => {
    const ids: string[] = [];
    let after: string | undefined;
    let pages = 0;
    do {
      const { body } = await call(
        `/crm/v3/objects/contacts?limit=4&properties=email,firstname${after ? `&after=${after}` : ''}`,
      );
      ids.push(...body.results.map((r) => r.id));
      after = body.paging?.next.after;
      pages++;
    } while (after);
    expect(pages).toBe(2);
    expect(ids).toHaveLength(6);
    expect(ids.every((id) => /^\d+$/.test(id))).toBe(true);

    const deals = await call(
      '/crm/v3/objects/deals?limit=100&properties=amount,dealstage&associations=companies',
    );
    expect(deals.body.results[1]!.properties.amount).toBe('12500.5');
    expect(deals.body.results[0]!.associations).toMatchObject({
      companies: { results: [{ id: expect.any(String) }] },
    });
    expect((await call('/crm/v3/objects/deals?limit=101')).res.status).toBe(400);
  });

  it('gives dealstage property history newest first', async () => {
    const { body } = await call('/crm/v3/objects/deals?limit=1&propertiesWithHistory=dealstage');
    const history = (body.results[0]!.propertiesWithHistory as Record<string, { value: string }[]>)
      .dealstage!;
    expect(history.map((h) => h.value)).toEqual([
      'closedwon',
      'contractsent',
      'qualifiedtobuy',
      'appointmentscheduled',
    ]);
  });

  it('searches by hs_lastmodifieddate ascending with total and after', async () => {
    const deal = fake.objects('deals')[1]!;
    const since = fake.update('deals', deal.id, { dealstage: 'contractsent' }).updatedAt;
    const { body } = await call('/crm/v3/objects/deals/search', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        filterGroups: [{ filters: [{ propertyName: 'hs_lastmodifieddate', operator: 'GTE', value: since }] }],
        sorts: [{ propertyName: 'hs_lastmodifieddate', direction: 'ASCENDING' }],
        properties: ['dealstage'],
        limit: 200,
      }),
    });
    expect(body.total).toBe(1);
    expect(body.results[0]).toMatchObject({ id: deal.id, properties: { dealstage: 'contractsent' } });
  });

  it('an archived deal leaves search, batch read and the listing; archived=true lists it with archivedAt', async () => {
    const deal = fake.objects('deals')[2]!;
    fake.archive('deals', deal.id);
    const search = await call('/crm/v3/objects/deals/search', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ limit: 200 }),
    });
    expect(search.body.results.map((r) => r.id)).not.toContain(deal.id);
    const read = await call('/crm/v3/objects/deals/batch/read', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: [{ id: deal.id }] }),
    });
    expect(read.body.results).toEqual([]);
    expect((await call('/crm/v3/objects/deals?limit=100')).body.results.map((r) => r.id)).not.toContain(
      deal.id,
    );
    const bin = await call('/crm/v3/objects/deals?limit=100&archived=true');
    expect(bin.body.results).toEqual([
      expect.objectContaining({ id: deal.id, archived: true, archivedAt: expect.any(String) }),
    ]);
    expect(bin.body.paging).toBeUndefined();
  });

  it('serves pipelines with string metadata, owners and lists with memberships', async () => {
    const pipes = (await call('/crm/v3/pipelines/deals')).body.results as unknown as {
      id: string;
      stages: { id: string; metadata: { probability: string; isClosed: string } }[];
    }[];
    expect(pipes.map((p) => p.id)).toEqual(['default', '7654321']);
    expect(pipes[0]!.stages[4]).toMatchObject({
      id: 'closedwon',
      metadata: { probability: '1.0', isClosed: 'true' },
    });
    expect((await call('/crm/v3/owners?limit=100')).body.results).toHaveLength(2);

    const search = await fetch(`${fake.apiUrl}/crm/v3/lists/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'webinar' }),
    });
    const lists = (await search.json()) as { lists: { listId: string }[]; total: number; hasMore: boolean };
    expect(lists).toMatchObject({ total: 1, hasMore: false });
    const members = await call(`/crm/v3/lists/${lists.lists[0]!.listId}/memberships?limit=2`);
    expect(members.body.results).toHaveLength(2);
    expect(members.body.paging?.next.after).toBe('2');
  });

  it('answers 429 RATE_LIMIT with policyName TEN_SECONDLY_ROLLING, on demand and over the burst limit', async () => {
    fake.failWithRateLimit(1);
    const limited = await call('/crm/v3/owners');
    expect(limited.res.status).toBe(429);
    expect(limited.body).toMatchObject({ errorType: 'RATE_LIMIT', policyName: 'TEN_SECONDLY_ROLLING' });
    expect((await call('/crm/v3/owners')).res.status).toBe(200);

    let clock = Date.UTC(2026, 0, 5, 9);
    const burst = await startFakeHubSpot({ burstLimit: 2, now: () => clock });
    try {
      const t = burst.issueTokens().access_token;
      const get = () => fetch(`${burst.apiUrl}/crm/v3/owners`, { headers: { authorization: `Bearer ${t}` } });
      const first = await get();
      expect(first.headers.get('x-hubspot-ratelimit-remaining')).toBe('1');
      await get();
      expect((await get()).status).toBe(429);
      clock += 10_000;
      expect((await get()).status).toBe(200);
    } finally {
      await burst.close();
    }
  });
});
