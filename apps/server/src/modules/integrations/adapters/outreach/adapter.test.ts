import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOutreach } from '../../../../../test/fakes/outreach.ts';
import type {
  FakeOutreach,
  FakeOutreachData,
  FakeOutreachOptions,
} from '../../../../../test/fakes/outreach.ts';
import type { AdapterContext, Credentials, Page } from '../../port.ts';
import { oauthCredentialsFrom, VendorAuthError, VendorError } from '../../vendor-http.ts';
import { createOutreachAdapter, OUTREACH_REVOKED_MESSAGE, OUTREACH_SCOPES } from './adapter.ts';

const DAY = 86_400;
const today = new Date();
const dateIn = (days: number) =>
  new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + days))
    .toISOString()
    .slice(0, 10);

/** A small Outreach org whose every mapping rule shows up in at least one record. */
const ORG: FakeOutreachData = {
  users: [
    { id: 11, firstName: 'Ana', lastName: 'Diaz', email: 'ana@acme.example', title: 'SDR' },
    { id: 12, firstName: 'Ben', lastName: 'Cho', email: 'ben@acme.example', locked: true },
  ],
  accounts: [{ id: 71, name: 'Globex', domain: 'globex.example' }],
  sequences: [
    {
      id: 21,
      name: 'Outbound',
      ownerId: 11,
      // cumulative 0, 1 d, 3 d, 3 d 1 h, 7 d 1 h → days 1, 2, 4, 4, 8
      steps: [
        { id: 211, interval: 0 },
        { id: 212, interval: DAY, stepType: 'call' },
        { id: 213, interval: 2 * DAY },
        { id: 214, interval: 3600 },
        { id: 215, interval: 4 * DAY },
      ],
    },
    {
      id: 22,
      name: 'Webinar',
      sequenceType: 'date',
      ownerId: 12,
      steps: [
        { id: 221, date: dateIn(0) },
        { id: 222, date: dateIn(2) },
        { id: 223, date: dateIn(2) },
        { id: 224, date: dateIn(9) },
      ],
    },
    { id: 23, name: 'Spring event', sequenceType: 'date', steps: [{ id: 231, date: '2020-03-02' }] },
    { id: 24, name: 'Not started', enabled: false },
    {
      id: 25,
      name: 'Nurture',
      // Paused: disabled after it ran, so enabledAt is null as Outreach's OpenAPI says.
      enabled: false,
      lastUsedAt: '2024-01-05T10:00:00.000Z',
      steps: [{ id: 251 }, { id: 252, interval: 7 * DAY }],
    },
  ],
  prospects: [
    {
      id: 31,
      firstName: 'Cleo',
      lastName: 'Park',
      emails: ['cleo@globex.example'],
      title: 'CRO',
      accountId: 71,
    },
    { id: 32, firstName: 'Dev', lastName: 'Rao', emails: [], occupation: 'Buyer', company: 'Initech' },
    { id: 33, firstName: 'Eve', lastName: 'Moss', emails: ['eve@home.example'] },
  ],
  sequenceStates: [
    { id: 41, sequenceId: 21, prospectId: 31, userId: 11, stepOrder: 3, state: 'active', deliverCount: 2 },
    { id: 42, sequenceId: 22, prospectId: 32, userId: 12, stepOrder: 4, state: 'finished', deliverCount: 3 },
    { id: 43, sequenceId: 21, prospectId: 33, state: 'pending' },
    { id: 44, sequenceId: 25, prospectId: 31, userId: 11, stepOrder: 2, state: 'bounced' },
    {
      id: 45,
      sequenceId: 21,
      prospectId: 32,
      userId: 11,
      stepOrder: 5,
      state: 'paused',
      callCompletedAt: '2024-05-01T10:00:00.000Z',
    },
  ],
};

const fakes: FakeOutreach[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});

async function setup(
  o: {
    data?: FakeOutreachData;
    fake?: FakeOutreachOptions;
    pageSize?: number;
    maxRateLimitWaitMs?: number;
  } = {},
) {
  const fake = await startFakeOutreach({ data: o.data ?? ORG, ...o.fake });
  fakes.push(fake);
  const waits: number[] = [];
  let onSleep = (_ms: number) => {};
  const adapter = createOutreachAdapter(
    { apiUrl: fake.apiUrl, authUrl: fake.authUrl, clientId: fake.clientId, clientSecret: fake.clientSecret },
    {
      retry: {
        sleep: async (ms) => {
          waits.push(ms);
          onSleep(ms);
        },
        baseDelayMs: 1,
        ...(o.maxRateLimitWaitMs ? { maxRateLimitWaitMs: o.maxRateLimitWaitMs } : {}),
      },
      pageSize: o.pageSize,
    },
  );
  let credentials: Credentials = oauthCredentialsFrom(fake.issueTokens({ userId: 11 }));
  const saved: Credentials[] = [];
  const ctx: AdapterContext = {
    credentials: () => credentials,
    saveCredentials: async (next) => {
      saved.push(next);
      credentials = next;
    },
  };
  const setCredentials = (c: Credentials) => {
    credentials = c;
  };
  const whenSleeping = (fn: (ms: number) => void) => {
    onSleep = fn;
  };
  return { fake, adapter, ctx, waits, saved, setCredentials, whenSleeping };
}

async function collect<T>(pages: AsyncIterable<Page<T>>): Promise<{ items: T[]; pages: Page<T>[] }> {
  const all: Page<T>[] = [];
  for await (const page of pages) all.push(page);
  return { items: all.flatMap((p) => p.items), pages: all };
}

const listCalls = (fake: FakeOutreach, path: string) =>
  fake.requests().filter((r) => r.method === 'GET' && r.path === `/api/v2/${path}`);

describe('Outreach adapter: connecting', () => {
  it('authorizeUrl + exchangeCode round trip through /oauth/authorize ("scope=<space-sep>&state")', async () => {
    const { adapter, ctx, setCredentials } = await setup();
    const redirectUri = 'http://127.0.0.1:9/integrations/outreach/callback';
    const url = adapter.authorizeUrl!({ state: 'st-123', redirectUri });
    expect(new URL(url).searchParams.get('scope')).toBe(OUTREACH_SCOPES.join(' '));

    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const back = new URL(res.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(redirectUri);
    expect(back.searchParams.get('state')).toBe('st-123');
    const code = back.searchParams.get('code')!;

    const before = Date.now();
    const creds = await adapter.exchangeCode!({ code, redirectUri });
    expect(creds.kind).toBe('oauth');
    expect(creds.refreshToken).toBeTruthy();
    // "expires_in (7200)"
    const expiresIn = Date.parse(creds.expiresAt!) - before;
    expect(expiresIn).toBeGreaterThan(7_190_000);
    expect(expiresIn).toBeLessThanOrEqual(7_201_000);

    setCredentials(creds);
    expect(await adapter.whoami(ctx)).toEqual({ accountName: 'ana@acme.example (Acme Outbound)' });
    // The authorization code is single-use.
    await expect(adapter.exchangeCode!({ code, redirectUri })).rejects.toMatchObject({ status: 400 });
  });

  it('the granted scopes are exactly what the adapter asks for, and they let a full sync through', async () => {
    const { fake, adapter, ctx, setCredentials } = await setup();
    const redirectUri = 'http://127.0.0.1:9/cb';
    const res = await fetch(adapter.authorizeUrl!({ state: 's', redirectUri }), { redirect: 'manual' });
    const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
    setCredentials(await adapter.exchangeCode!({ code, redirectUri }));
    await collect(adapter.users(ctx, null));
    await collect(adapter.cadences(ctx, null));
    const { items } = await collect(adapter.memberships(ctx, null));
    expect(items).toHaveLength(5);
    expect(fake.requests().every((r) => r.status < 400)).toBe(true);
  });
});

describe('Outreach adapter: first sync', () => {
  it('maps users (locked → inactive), oldest first', async () => {
    const { fake, adapter, ctx } = await setup();
    const { items, pages } = await collect(adapter.users(ctx, null));
    expect(items).toEqual([
      {
        externalId: '11',
        firstName: 'Ana',
        lastName: 'Diaz',
        email: 'ana@acme.example',
        title: 'SDR',
        isActive: true,
        updatedAt: expect.any(String),
      },
      {
        externalId: '12',
        firstName: 'Ben',
        lastName: 'Cho',
        email: 'ben@acme.example',
        title: '',
        isActive: false,
        updatedAt: expect.any(String),
      },
    ]);
    expect(pages.map((p) => p.totalPages)).toEqual([1]);
    expect(listCalls(fake, 'users')[0]!.query).toMatchObject({ sort: 'updatedAt', count: 'true' });
  });

  it('maps sequences to cadences with step days ("day ≈ 1 + floor(sum of interval … / 86400)"; date sequences use `date`)', async () => {
    const { adapter, ctx } = await setup();
    const { items } = await collect(adapter.cadences(ctx, null));
    const byId = Object.fromEntries(items.map((c) => [c.externalId, c]));
    expect(byId['21']).toMatchObject({
      name: 'Outbound',
      status: 'active',
      ownerExternalId: '11',
      days: [1, 2, 4, 8],
    });
    expect(byId['22']).toMatchObject({
      name: 'Webinar',
      status: 'active',
      ownerExternalId: '12',
      days: [1, 3, 10],
    });
    // A date sequence whose last date is past has finished.
    expect(byId['23']).toMatchObject({ status: 'finished', ownerExternalId: null, days: [1] });
    expect(byId['24']).toMatchObject({ status: 'draft', days: [] });
    expect(byId['25']).toMatchObject({ status: 'paused', days: [1, 8] });
    expect(items.map((c) => c.updatedAt)).toEqual(items.map((c) => c.updatedAt).sort());
  });

  it('maps sequenceStates to memberships: prospect, account company, current step → day, state, contacted', async () => {
    const { fake, adapter, ctx } = await setup();
    const { items } = await collect(adapter.memberships(ctx, null));
    const byId = Object.fromEntries(items.map((m) => [m.externalId, m]));
    expect(byId['41']).toEqual({
      externalId: '41',
      cadenceExternalId: '21',
      prospect: {
        externalId: '31',
        firstName: 'Cleo',
        lastName: 'Park',
        email: 'cleo@globex.example',
        title: 'CRO',
        company: { externalId: '71', name: 'Globex', website: 'https://globex.example' },
        // Outreach's prospect `optedOut` (issue 44): not opted out here.
        optedOut: false,
        updatedAt: expect.any(String),
      },
      userExternalId: '11',
      dayNumber: 4,
      isActive: true,
      contacted: true,
      updatedAt: expect.any(String),
    });
    // Finished on the date sequence's last step (day 10); no account, company by name; occupation as title.
    expect(byId['42']).toMatchObject({
      cadenceExternalId: '22',
      dayNumber: 10,
      isActive: false,
      contacted: true,
      userExternalId: '12',
      prospect: {
        email: null,
        title: 'Buyer',
        company: { externalId: 'name:initech', name: 'Initech', website: null },
      },
    });
    // Pending, no current step yet.
    expect(byId['43']).toMatchObject({
      dayNumber: 1,
      isActive: true,
      contacted: false,
      userExternalId: null,
    });
    expect(byId['43']!.prospect.company).toBeNull();
    expect(byId['44']).toMatchObject({
      cadenceExternalId: '25',
      dayNumber: 8,
      isActive: false,
      contacted: true,
    });
    expect(byId['45']).toMatchObject({ dayNumber: 8, isActive: true, contacted: true });

    const states = listCalls(fake, 'sequenceStates')[0]!;
    expect(states.query).toMatchObject({ include: 'prospect,sequenceStep', sort: 'updatedAt' });
    // Accounts come in one filter[id] batch.
    expect(listCalls(fake, 'accounts').map((r) => r.query['filter[id]'])).toEqual(['71']);
  });

  it('a sequence paused in Outreach (enabledAt null once disabled) stays paused, not draft', async () => {
    const { fake, adapter, ctx } = await setup();
    // Before, the status came from enabledAt, which Outreach nulls on disabling: paused read as draft.
    fake.mutate('sequence', 21, { enabled: false });
    expect(fake.get('sequence', 21)).toMatchObject({ enabledAt: null });
    const { items } = await collect(adapter.cadences(ctx, null));
    const byId = Object.fromEntries(items.map((c) => [c.externalId, c.status]));
    expect(byId).toMatchObject({ '21': 'paused', '24': 'draft', '25': 'paused' });
  });

  it('every request carries Content-Type application/vnd.api+json, GETs included (else 415)', async () => {
    const { fake, adapter, ctx } = await setup();
    await adapter.whoami(ctx);
    await collect(adapter.users(ctx, null));
    await collect(adapter.cadences(ctx, null));
    await collect(adapter.memberships(ctx, null));
    const api = fake.requests().filter((r) => r.path.startsWith('/api/v2'));
    expect(api.length).toBeGreaterThan(4);
    expect(api.filter((r) => r.status === 415)).toEqual([]);
  });

  it('a "sync now" of one cadence asks for filter[sequence][id]', async () => {
    const { fake, adapter, ctx } = await setup();
    const { items } = await collect(adapter.memberships(ctx, null, { cadenceExternalId: '21' }));
    expect(items.map((m) => m.externalId).sort()).toEqual(['41', '43', '45']);
    expect(listCalls(fake, 'sequenceStates')[0]!.query['filter[sequence][id]']).toBe('21');
  });
});

describe('Outreach adapter: incremental sync ("filter[updatedAt]=<iso>..inf")', () => {
  it('asks only for records changed after the cursor, and returns only those', async () => {
    const { fake, adapter, ctx } = await setup();
    const first = {
      users: (await collect(adapter.users(ctx, null))).items,
      cadences: (await collect(adapter.cadences(ctx, null))).items,
      memberships: (await collect(adapter.memberships(ctx, null))).items,
    };
    const cursor = [...first.users, ...first.cadences, ...first.memberships]
      .map((r) => r.updatedAt!)
      .sort()
      .at(-1)!;

    fake.mutate('user', 12, { title: 'AE' });
    fake.mutate('sequence', 24, { name: 'Now named' });
    fake.mutate('sequenceStep', 222, { date: dateIn(4) }); // its sequence's updatedAt stays
    fake.mutate('sequenceState', 41, { sequenceStep: 215 });
    fake.mutate('prospect', 33, { title: 'Founder' }); // its sequenceState's updatedAt stays
    fake.clearRequests();

    const users = (await collect(adapter.users(ctx, cursor))).items;
    expect(users.map((u) => [u.externalId, u.title])).toEqual([['12', 'AE']]);

    const cadences = (await collect(adapter.cadences(ctx, cursor))).items;
    expect(cadences.map((c) => [c.externalId, c.name])).toEqual([
      ['24', 'Now named'],
      ['22', 'Webinar'],
    ]);
    expect(cadences[1]!.days).toEqual([1, 3, 5, 10]);

    const memberships = (await collect(adapter.memberships(ctx, cursor))).items;
    expect(memberships.map((m) => [m.externalId, m.dayNumber])).toEqual([
      ['41', 8],
      ['43', 1],
    ]);
    expect(memberships[1]!.prospect.title).toBe('Founder');

    // Outreach ranges are inclusive: the adapter starts 1 ms after the cursor.
    const from = `${new Date(Date.parse(cursor) + 1).toISOString()}..inf`;
    for (const path of ['users', 'sequences', 'sequenceStates']) {
      expect(listCalls(fake, path)[0]!.query).toMatchObject({ 'filter[updatedAt]': from, sort: 'updatedAt' });
    }
  });
});

describe('Outreach adapter: tokens and failures', () => {
  it('refreshes an expired access token once, saves the rotated tokens, and the old refresh token is dead', async () => {
    const { fake, adapter, ctx, saved } = await setup();
    const old = ctx.credentials();
    fake.expireAccessTokens();
    const { items } = await collect(adapter.users(ctx, null));
    expect(items).toHaveLength(2);

    expect(saved).toHaveLength(1);
    const next = saved[0]!;
    expect(next.kind === 'oauth' && next.accessToken !== (old.kind === 'oauth' && old.accessToken)).toBe(
      true,
    );
    expect(next.kind === 'oauth' && next.refreshToken !== (old.kind === 'oauth' && old.refreshToken)).toBe(
      true,
    );
    expect(
      fake
        .requests()
        .filter((r) => r.path === '/oauth/token')
        .map((r) => r.status),
    ).toEqual([200]);

    const reuse = await fetch(`${fake.authUrl}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: old.kind === 'oauth' ? old.refreshToken! : '',
        client_id: fake.clientId,
        client_secret: fake.clientSecret,
      }),
    });
    expect(reuse.status).toBe(400);
    expect(await reuse.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('a revoked connection raises VendorAuthError with a message that says to reconnect', async () => {
    const { fake, adapter, ctx, saved } = await setup();
    fake.revokeAll();
    const err = await adapter.whoami(ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VendorAuthError);
    expect((err as Error).message).toBe(OUTREACH_REVOKED_MESSAGE);
    expect((err as Error).message).toContain('Reconnect Outreach in Settings › Connections');
    expect(saved).toEqual([]);
  });

  it('a 429 with Retry-After mid-sync is waited for exactly that long; no duplicates ("429 + Retry-After")', async () => {
    const { fake, adapter, ctx, waits } = await setup({ pageSize: 2 });
    const seen: string[] = [];
    let page = 0;
    for await (const p of adapter.memberships(ctx, null)) {
      seen.push(...p.items.map((m) => m.externalId));
      if (++page === 1) fake.failNext(1, 429, 7);
    }
    expect(waits).toEqual([7000]);
    expect(seen.sort()).toEqual(['41', '42', '43', '44', '45']);
    expect(fake.requests().filter((r) => r.status === 429)).toHaveLength(1);
  });

  it('a 5xx is retried with backoff and the sync completes', async () => {
    const { fake, adapter, ctx, waits } = await setup();
    fake.failNext(2, 503);
    const { items } = await collect(adapter.users(ctx, null));
    expect(items).toHaveLength(2);
    expect(waits).toHaveLength(2);
    expect(listCalls(fake, 'users').map((r) => r.status)).toEqual([503, 503, 200]);
  });

  it('gives up with VendorError when the 5xx goes on past the retries', async () => {
    const { fake, adapter, ctx } = await setup();
    fake.failNext(20, 500);
    await expect(collect(adapter.users(ctx, null))).rejects.toBeInstanceOf(VendorError);
  });

  it('"10,000 req/hour per user": on the limit, waits until the window resets and goes on', async () => {
    let clock = Date.UTC(2024, 4, 1, 9, 59, 30); // 30 s before the hourly window resets
    const { fake, adapter, ctx, waits, whenSleeping } = await setup({
      fake: { rateLimitPerHour: 3, now: () => clock },
      pageSize: 1,
      maxRateLimitWaitMs: 3_600_000,
    });
    whenSleeping((ms) => {
      clock += ms;
    });
    // Two pages of users and whoami use up the window of 3; the next sync meets the limit.
    await collect(adapter.users(ctx, null));
    await adapter.whoami(ctx);
    const { items } = await collect(adapter.users(ctx, null));
    expect(items.map((u) => u.externalId)).toEqual(['11', '12']);
    // Retry-After says when the window resets: 30 s.
    expect(waits).toEqual([30_000]);
    expect(fake.requests().map((r) => r.status)).toEqual([200, 200, 200, 429, 200, 200]);
  });

  it('a token without a needed scope ("Missing → 403 unauthorizedOauthScope") asks the user to reconnect', async () => {
    const { fake, adapter, ctx, setCredentials } = await setup();
    setCredentials(
      oauthCredentialsFrom(
        fake.issueTokens({ scopes: OUTREACH_SCOPES.filter((s) => s !== 'sequenceStates.read') }),
      ),
    );
    const err = await collect(adapter.memberships(ctx, null)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VendorAuthError);
    expect((err as Error).message).toMatch(/Reconnect Outreach/);
  });
});

describe('Outreach adapter: paging ("follow opaque links.next until absent")', () => {
  it('walks several pages with page[size] and the cursor, counting only on the first page', async () => {
    const users = Array.from({ length: 7 }, (_, i) => ({
      id: 100 + i,
      firstName: `U${i}`,
      lastName: 'Test',
    }));
    const { fake, adapter, ctx } = await setup({ data: { users }, pageSize: 3 });
    const { items, pages } = await collect(adapter.users(ctx, null));
    expect(items.map((u) => u.externalId)).toEqual(users.map((u) => String(u.id)));
    expect(pages.map((p) => p.items.length)).toEqual([3, 3, 1]);
    expect(pages.map((p) => p.totalPages)).toEqual([3, 3, 3]);

    const calls = listCalls(fake, 'users');
    expect(calls).toHaveLength(3);
    expect(calls.map((c) => c.query['page[size]'])).toEqual(['3', '3', '3']);
    expect(calls[0]!.query['page[after]']).toBeUndefined();
    expect(calls[0]!.query.count).toBe('true');
    expect(calls.slice(1).every((c) => c.query['page[after]'] && c.query.count === undefined)).toBe(true);
  });

  it('never ends a page inside a run of equal updatedAt, so a sync stopped between pages loses nothing', async () => {
    const at = (s: number) => `2024-05-01T10:00:0${s}.000Z`;
    const users = [1, 2, 2, 2, 2, 3].map((s, i) => ({
      id: 100 + i,
      firstName: `U${i}`,
      lastName: 'Test',
      updatedAt: at(s),
    }));
    const { adapter, ctx } = await setup({ data: { users }, pageSize: 2 });
    const { pages } = await collect(adapter.users(ctx, null));
    expect(pages.map((p) => p.items.map((u) => u.updatedAt))).toEqual([
      [at(1)],
      [],
      [at(2), at(2), at(2), at(2), at(3)],
    ]);

    // The engine keeps the newest updatedAt of each stored page; stop after the first page and resume.
    const it = adapter.users(ctx, null)[Symbol.asyncIterator]();
    const first = (await it.next()).value as Page<{ updatedAt: string | null }>;
    await it.return?.();
    const cursor = first.items
      .map((u) => u.updatedAt!)
      .sort()
      .at(-1)!;
    const rest = await collect(adapter.users(ctx, cursor));
    expect(rest.items.map((u) => u.externalId)).toEqual(['101', '102', '103', '104', '105']);
  });

  it('pages memberships with their accounts and steps across pages without repeats', async () => {
    const { adapter, ctx } = await setup({ pageSize: 2 });
    const { items, pages } = await collect(adapter.memberships(ctx, null));
    expect(pages).toHaveLength(3);
    expect(new Set(items.map((m) => m.externalId)).size).toBe(5);
    expect(items.find((m) => m.externalId === '41')!.dayNumber).toBe(4);
  });
});
