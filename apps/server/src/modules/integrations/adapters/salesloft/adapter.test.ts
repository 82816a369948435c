import { afterEach, describe, expect, it } from 'vitest';
import { demoSalesloftData, startFakeSalesloft } from '../../../../../test/fakes/salesloft.ts';
import type {
  FakeSalesloft,
  FakeSalesloftSeed,
  StartFakeSalesloftOptions,
} from '../../../../../test/fakes/salesloft.ts';
import type { AdapterContext, Credentials, Page, SequenceAdapter } from '../../port.ts';
import { VendorAuthError, VendorError, oauthCredentialsFrom } from '../../vendor-http.ts';
import { createSalesloftAdapter } from './adapter.ts';

/** A small team: string step numbers and days (seen in the wild), a draft and an archived cadence. */
const smallTeam = (): FakeSalesloftSeed => ({
  team: { name: 'Initrode' },
  users: [
    { id: 1, first_name: 'Ada', last_name: 'Admin', email: 'ada@initrode.example', team_admin: true },
    { id: 2, first_name: 'Rob', last_name: 'Rep', email: 'rob@initrode.example' },
    { id: 3, first_name: 'Gone', last_name: 'Rep', email: 'gone@initrode.example', active: false },
  ],
  accounts: [
    { id: 10, name: 'Globex', domain: 'globex.example' },
    { id: 11, name: 'Initech', website: 'https://initech.example' },
  ],
  people: [
    {
      id: 100,
      first_name: 'Pat',
      last_name: 'Prospect',
      email_address: 'pat@globex.example',
      title: 'CTO',
      account_id: 10,
    },
    { id: 101, first_name: 'Sam', last_name: 'Sample', email_address: 'sam@initech.example', account_id: 11 },
    { id: 102, first_name: 'Lee', last_name: 'Loner', email_address: 'lee@example.org', title: 'Founder' },
  ],
  cadences: [
    {
      id: 20,
      name: 'Outbound',
      owner_id: 2,
      steps: [
        { id: 200, day: 1 },
        { id: 201, day: '1', step_number: '2', type: 'phone' },
        { id: 202, day: 3 },
        { id: 203, day: '7', step_number: '1' },
        { id: 204, day: 9, disabled: true },
      ],
    },
    { id: 21, name: 'Draft one', owner_id: 1, current_state: 'draft', steps: [{ day: 1 }, { day: 2 }] },
    {
      id: 22,
      name: 'Old one',
      owner_id: 1,
      current_state: 'archived',
      archived_at: '2026-01-05T10:00:00.000000Z',
      steps: [{ day: 1 }],
    },
  ],
  memberships: [
    { id: 30, cadence_id: 20, person_id: 100, user_id: 2, day: 3, counts: { sent_emails: 1, calls: 1 } },
    { id: 31, cadence_id: 20, person_id: 101, user_id: 2, current_state: 'staged' },
    { id: 32, cadence_id: 21, person_id: 102, user_id: 1, day: 2, current_state: 'completed' },
  ],
});

const fakes: FakeSalesloft[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});

/**
 * A fake with an adapter pointed at it and one connection (credentials the adapter may rotate).
 * Retry waits are recorded and move the fake's clock instead of sleeping.
 */
async function setup(opts: StartFakeSalesloftOptions = { seed: smallTeam() }) {
  const fake = await startFakeSalesloft(opts);
  fakes.push(fake);
  const sleeps: number[] = [];
  const adapter = createSalesloftAdapter(
    { apiUrl: fake.apiUrl, authUrl: fake.authUrl, clientId: fake.clientId, clientSecret: fake.clientSecret },
    {
      retry: {
        baseDelayMs: 1,
        maxDelayMs: 8,
        sleep: async (ms) => {
          sleeps.push(ms);
          fake.advanceClock(ms);
        },
      },
    },
  );
  let credentials: Credentials = oauthCredentialsFrom(fake.grantTokens());
  const saved: Credentials[] = [];
  const ctx: AdapterContext = {
    credentials: () => credentials,
    saveCredentials: async (next) => {
      saved.push(next);
      credentials = next;
    },
  };
  return { fake, adapter, ctx, sleeps, saved, credentials: () => credentials };
}

async function collect<T>(pages: AsyncIterable<Page<T>>) {
  const items: T[] = [];
  const sizes: number[] = [];
  const totals: Array<number | null> = [];
  for await (const page of pages) {
    items.push(...page.items);
    sizes.push(page.items.length);
    totals.push(page.totalPages);
  }
  return { items, sizes, totals };
}

const sync = async (adapter: SequenceAdapter, ctx: AdapterContext, since: string | null = null) => ({
  users: (await collect(adapter.users(ctx, since))).items,
  cadences: (await collect(adapter.cadences(ctx, since))).items,
  memberships: (await collect(adapter.memberships(ctx, since))).items,
});

const latest = (items: Array<{ updatedAt: string | null }>) =>
  items.map((i) => i.updatedAt!).reduce((a, b) => (a > b ? a : b));

describe('Salesloft adapter', () => {
  it('first sync returns every user, every cadence with its step days, every membership with prospect, company, rep and day', async () => {
    const { adapter, ctx } = await setup();
    const { users, cadences, memberships } = await sync(adapter, ctx);

    expect(users.map((u) => [u.externalId, u.firstName, u.lastName, u.email, u.isActive])).toEqual([
      ['1', 'Ada', 'Admin', 'ada@initrode.example', true],
      ['2', 'Rob', 'Rep', 'rob@initrode.example', true],
      ['3', 'Gone', 'Rep', 'gone@initrode.example', false],
    ]);

    const byId = Object.fromEntries(cadences.map((c) => [c.externalId, c]));
    expect(cadences).toHaveLength(3);
    // Days are the distinct days of enabled steps, from numbers or strings.
    expect(byId['20']).toMatchObject({
      name: 'Outbound',
      status: 'active',
      ownerExternalId: '2',
      days: [1, 3, 7],
    });
    expect(byId['21']).toMatchObject({ status: 'draft', days: [1, 2] });
    expect(byId['22']).toMatchObject({ status: 'finished', days: [1] });

    const m = Object.fromEntries(memberships.map((x) => [x.externalId, x]));
    expect(memberships).toHaveLength(3);
    expect(m['30']).toMatchObject({
      cadenceExternalId: '20',
      userExternalId: '2',
      dayNumber: 3,
      isActive: true,
      contacted: true,
      prospect: {
        externalId: '100',
        firstName: 'Pat',
        lastName: 'Prospect',
        email: 'pat@globex.example',
        title: 'CTO',
        company: { externalId: '10', name: 'Globex', website: 'https://www.globex.example' },
      },
    });
    // Staged, not started: no latest action, so day 1 and nobody reached out yet.
    expect(m['31']).toMatchObject({ dayNumber: 1, isActive: true, contacted: false });
    expect(m['31']!.prospect.company).toEqual({
      externalId: '11',
      name: 'Initech',
      website: 'https://initech.example',
    });
    expect(m['32']).toMatchObject({
      cadenceExternalId: '21',
      dayNumber: 2,
      isActive: false,
      contacted: true,
    });
    expect(m['32']!.prospect.company).toBeNull();
    // Oldest first (port.ts), so a sync can checkpoint as it goes.
    const times = memberships.map((x) => x.updatedAt);
    expect([...times].sort()).toEqual(times);
  });

  it('whoami names the team and the connected user', async () => {
    const { adapter, ctx } = await setup();
    await expect(adapter.whoami(ctx)).resolves.toEqual({
      accountName: 'Initrode (ada@initrode.example)',
      accessNote: null,
    });
  });

  it("a non-admin's connection says what it cannot see: Salesloft gives it only its own actions and user", async () => {
    const { fake, adapter } = await setup();
    let credentials: Credentials = oauthCredentialsFrom(fake.grantTokens(2));
    const rob: AdapterContext = {
      credentials: () => credentials,
      saveCredentials: async (next) => {
        credentials = next;
      },
    };
    // /me carries team_admin; before, whoami did not read it and said nothing.
    const who = await adapter.whoami(rob);
    expect(who.accountName).toBe('Initrode (rob@initrode.example)');
    expect(who.accessNote).toMatch(/^rob@initrode\.example is not a Salesloft team admin/);
    // The fake narrows the view as Salesloft documents (List users, List actions).
    const { users } = await sync(adapter, rob);
    expect(users.map((u) => u.externalId)).toEqual(['2']);
    const actions = fake.apiRequests('actions');
    expect(actions.length).toBeGreaterThan(0);
  });

  it('a full cadence sync pages /steps by page number and ends, though Salesloft ignores updated_at there', async () => {
    // 5 cadences × 50 steps = 250 steps: 3 pages of 100.
    const seed: FakeSalesloftSeed = {
      users: [{ id: 1, first_name: 'Ada', last_name: 'Admin', email: 'ada@x.example', team_admin: true }],
      cadences: Array.from({ length: 5 }, (_, c) => ({
        id: 20 + c,
        name: `C${c}`,
        owner_id: 1,
        steps: Array.from({ length: 50 }, (_, i) => ({ day: 1 + i })),
      })),
    };
    const { fake, adapter, ctx } = await setup({ seed });
    // The old walk asked for updated_at[gte], which /steps does not document: the fake (like a
    // vendor ignoring an unknown filter) served page 1 again and again. Stop such a walk here.
    const stop = new AbortController();
    const watch = setInterval(() => {
      if (fake.apiRequests('steps').length > 20) stop.abort(new Error('the /steps walk did not end'));
    }, 5);
    try {
      const { items } = await collect(adapter.cadences({ ...ctx, signal: stop.signal }, null));
      expect(items).toHaveLength(5);
      expect(items.every((c) => c.days.length === 50)).toBe(true);
    } finally {
      clearInterval(watch);
    }
    const pages = fake.apiRequests('steps');
    expect(pages.map((r) => r.query.get('page'))).toEqual(['1', '2', '3']);
    expect(pages.every((r) => ![...r.query.keys()].some((k) => k.startsWith('updated_at')))).toBe(true);
  });

  it('incremental sync with `since` returns only what changed (API-NOTES: "sort_by=updated_at&sort_direction=ASC&updated_at[gt]=<last>")', async () => {
    const { fake, adapter, ctx } = await setup();
    const first = await sync(adapter, ctx);
    const cadenceSince = latest(first.cadences);
    const membershipSince = latest(first.memberships);
    const userSince = latest(first.users);

    fake.update('cadence', 20, { name: 'Outbound v2' });
    fake.update('membership', 30, { day: 7 });
    fake.update('user', 2, { first_name: 'Robert' });
    fake.clearRequests();

    const cadences = (await collect(adapter.cadences(ctx, cadenceSince))).items;
    expect(cadences.map((c) => [c.externalId, c.name, c.days])).toEqual([['20', 'Outbound v2', [1, 3, 7]]]);
    const memberships = (await collect(adapter.memberships(ctx, membershipSince))).items;
    expect(memberships.map((x) => [x.externalId, x.dayNumber])).toEqual([['30', 7]]);
    const users = (await collect(adapter.users(ctx, userSince))).items;
    expect(users.map((u) => [u.externalId, u.firstName])).toEqual([['2', 'Robert']]);

    for (const [name, since] of [
      ['cadences', cadenceSince],
      ['cadence_memberships', membershipSince],
    ] as const) {
      const [call] = fake.apiRequests(name);
      expect(call?.query.get('updated_at[gt]')).toBe(since);
      expect(call?.query.get('sort_by')).toBe('updated_at');
      expect(call?.query.get('sort_direction')).toBe('ASC');
      expect(call?.query.get('per_page')).toBe('100');
    }
    // An incremental cadence sync reads the steps of the changed cadence only (the other /steps
    // call is the memberships' lookup of steps by id).
    const stepListings = fake.apiRequests('steps').filter((r) => !r.query.has('ids[]'));
    expect(stepListings.map((r) => r.query.get('cadence_id'))).toEqual(['20']);

    // Nothing changed since: nothing comes back.
    expect((await collect(adapter.memberships(ctx, memberships[0]!.updatedAt))).items).toEqual([]);
  });

  it('limits memberships to one cadence for a "sync now" of that cadence', async () => {
    const { fake, adapter, ctx } = await setup();
    const { items } = await collect(adapter.memberships(ctx, null, { cadenceExternalId: '20' }));
    expect(items.map((x) => x.externalId).sort()).toEqual(['30', '31']);
    expect(fake.apiRequests('cadence_memberships')[0]?.query.get('cadence_id')).toBe('20');
  });

  it("derives the day from the person's last completed step when the latest action is gone", async () => {
    const { fake, adapter, ctx } = await setup();
    // Membership 30 is on day 3 (step 202): its last completed step is step 201, on day "1".
    fake.dropLatestAction(30);
    const { items } = await collect(adapter.memberships(ctx, null));
    expect(items.find((x) => x.externalId === '30')).toMatchObject({ dayNumber: 1, contacted: true });
  });

  it('leaves out the membership of a person deleted in Salesloft (no prospect to show ads to)', async () => {
    const { fake, adapter, ctx } = await setup();
    const since = latest((await collect(adapter.memberships(ctx, null))).items);
    fake.deletePerson(101);
    const { items } = await collect(adapter.memberships(ctx, since));
    expect(items).toEqual([]);
    // The membership did come back, marked person_deleted, and was dropped by the adapter.
    expect(fake.apiRequests('cadence_memberships').at(-1)?.status).toBe(200);
    expect(fake.apiRequests('people').at(-1)?.query.getAll('ids[]')).toEqual(['101']);
  });

  it('refreshes an expired access token: the engine gets the new credentials and the old refresh token is dead (API-NOTES: "rotates — keep the newest")', async () => {
    const { fake, adapter, ctx, saved, credentials } = await setup();
    const before = credentials();
    fake.expireAccessTokens();

    const { items } = await collect(adapter.cadences(ctx, null));
    expect(items).toHaveLength(3);
    expect(saved).toHaveLength(1);
    const after = saved[0]!;
    if (before.kind !== 'oauth' || after.kind !== 'oauth') throw new Error('expected OAuth credentials');
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.refreshToken).not.toBe(before.refreshToken);
    // expires_in 7200 s
    expect(Date.parse(after.expiresAt!) - Date.now()).toBeGreaterThan(7100_000);
    expect(fake.requests.filter((r) => r.path === '/oauth/token').map((r) => r.status)).toEqual([200]);

    const reuse = await fetch(`${fake.authUrl}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: before.refreshToken!,
        client_id: fake.clientId,
        client_secret: fake.clientSecret,
      }),
    });
    expect(reuse.status).toBe(400);
    expect(await reuse.json()).toMatchObject({ error: 'invalid_grant' });

    // The new token works without another refresh.
    await adapter.whoami(ctx);
    expect(saved).toHaveLength(1);
  });

  it('waits out a 429 in the middle of a sync and finishes without duplicates (API-NOTES: "over → 429, no Retry-After")', async () => {
    const { fake, adapter, ctx, sleeps } = await setup({ seed: bigCadence(250) });
    const pages = adapter.memberships(ctx, null)[Symbol.asyncIterator]();
    const seen: string[] = [];
    const firstPage = await pages.next();
    seen.push(...(firstPage.value as Page<{ externalId: string }>).items.map((x) => x.externalId));

    fake.failNext(2, 429);
    for (let r = await pages.next(); !r.done; r = await pages.next())
      seen.push(...r.value.items.map((x) => x.externalId));

    expect(seen).toHaveLength(250);
    expect(new Set(seen).size).toBe(250);
    // No Retry-After: the adapter waits a whole rate-limit minute each time.
    expect(sleeps).toEqual([60_000, 60_000]);
    expect(fake.requests.filter((r) => r.status === 429)).toHaveLength(2);
  });

  it("keeps within the team's cost budget: a sync larger than the minute's budget waits for the next minute", async () => {
    const { fake, adapter, ctx, sleeps } = await setup({ seed: bigCadence(250), rateLimitPerMinute: 6 });
    const { items } = await collect(adapter.memberships(ctx, null));
    expect(new Set(items.map((x) => x.externalId)).size).toBe(250);
    expect(sleeps.length).toBeGreaterThan(0);
    expect(sleeps.every((ms) => ms === 60_000)).toBe(true);
    const limited = fake.requests.filter((r) => r.status === 429);
    expect(limited.length).toBe(sleeps.length);
  });

  it('retries a 5xx with backoff', async () => {
    const { fake, adapter, ctx, sleeps } = await setup();
    fake.failNext(2, 503);
    const { items } = await collect(adapter.cadences(ctx, null));
    expect(items).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
    expect(sleeps.every((ms) => ms > 0 && ms <= 8)).toBe(true);
    expect(fake.requests.slice(0, 3).map((r) => r.status)).toEqual([503, 503, 200]);
  });

  it('raises VendorAuthError with a message that says what to do when access was revoked', async () => {
    const { fake, adapter, ctx, saved } = await setup();
    fake.revokeAll();
    const error = await adapter.whoami(ctx).then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(VendorAuthError);
    expect((error as Error).message).toBe(
      "Salesloft no longer accepts Rally's access (it was revoked or expired). Reconnect Salesloft in Settings › Connections.",
    );
    // It tried the refresh token once, which the fake refused too; nothing was saved.
    expect(fake.requests.filter((r) => r.path === '/oauth/token').map((r) => r.status)).toEqual([400]);
    expect(saved).toEqual([]);
  });

  it('pages through more than 100 records by updated_at cursor, reporting the page count', async () => {
    const { fake, adapter, ctx } = await setup({ seed: bigCadence(250) });
    const { items, sizes, totals } = await collect(adapter.memberships(ctx, null));
    // After the first page the cursor's own record is asked for again (`gte`, in case another shares
    // its instant) and skipped, so later pages carry one record fewer.
    expect(sizes).toEqual([100, 99, 51]);
    expect(totals).toEqual([3, 3, 3]);
    expect(new Set(items.map((x) => x.externalId)).size).toBe(250);
    expect(items.every((x) => x.prospect.company?.name === 'Big Co' && x.dayNumber === 2)).toBe(true);

    const calls = fake.apiRequests('cadence_memberships');
    expect(calls).toHaveLength(3);
    expect(calls[0]!.query.get('include_paging_counts')).toBe('true');
    expect(calls[1]!.query.get('updated_at[gte]')).toBe(items[99]!.updatedAt);
    // Every request is a first page: cost 1 (pages past 100 cost more).
    expect(calls.every((c) => c.query.get('page') === '1')).toBe(true);
    // People are fetched by id, at most 100 at a time.
    expect(fake.apiRequests('people').every((r) => r.query.getAll('ids[]').length <= 100)).toBe(true);
  });

  it('does not lose records that share one updated_at across a page boundary', async () => {
    const same = '2026-03-01T12:00:00.000000Z';
    const seed = bigCadence(150);
    seed.memberships = seed.memberships!.map((m) => ({ ...m, updated_at: same }));
    const { fake, adapter, ctx } = await setup({ seed });
    const { items } = await collect(adapter.memberships(ctx, null));
    expect(items).toHaveLength(150);
    expect(new Set(items.map((x) => x.externalId)).size).toBe(150);
    // The cursor cannot move past a page that shares one instant, so the page number does.
    expect(fake.apiRequests('cadence_memberships').map((r) => r.query.get('page'))).toEqual(['1', '1', '2']);
  });

  it('exchangeCode + authorizeUrl round trip through the fake /oauth/authorize', async () => {
    const { fake, adapter } = await setup();
    const redirectUri = 'http://127.0.0.1:3999/v1/api/integrations/salesloft/callback';
    const url = new URL(adapter.authorizeUrl!({ state: 'st4te', redirectUri }));
    expect(url.origin + url.pathname).toBe(`${fake.authUrl}/oauth/authorize`);
    expect(url.searchParams.get('scope')).toBe(
      'cadences:read people:read accounts:read team:read activities:read people:write',
    );

    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const back = new URL(res.headers.get('location')!);
    expect(back.origin + back.pathname).toBe(redirectUri);
    expect(back.searchParams.get('state')).toBe('st4te');
    expect(back.searchParams.get('scope')).toBe(
      'cadences:read people:read accounts:read team:read activities:read people:write',
    );
    expect(back.searchParams.get('context')).toBeTruthy();

    const credentials = await adapter.exchangeCode!({ code: back.searchParams.get('code')!, redirectUri });
    expect(credentials).toMatchObject({
      kind: 'oauth',
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
    });
    const ctx: AdapterContext = { credentials: () => credentials, saveCredentials: async () => {} };
    await expect(adapter.whoami(ctx)).resolves.toMatchObject({
      accountName: 'Initrode (ada@initrode.example)',
    });

    // A code works once, and only with the redirect URI it was issued for.
    await expect(
      adapter.exchangeCode!({ code: back.searchParams.get('code')!, redirectUri }),
    ).rejects.toMatchObject({
      status: 400,
    });
    const other = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location')!);
    await expect(
      adapter.exchangeCode!({
        code: other.searchParams.get('code')!,
        redirectUri: 'http://127.0.0.1:3999/elsewhere',
      }),
    ).rejects.toBeInstanceOf(VendorError);
  });

  it('syncs the demo team used by the end-to-end tests', async () => {
    const { adapter, ctx } = await setup({ seed: demoSalesloftData() });
    const { users, cadences, memberships } = await sync(adapter, ctx);
    expect(users).toHaveLength(4);
    expect(cadences.map((c) => [c.name, c.status, c.days])).toEqual([
      ['Enterprise Outbound — Q3', 'active', [1, 3, 5, 8, 12]],
      ['Inbound Demo Follow-up', 'active', [1, 2, 4, 7]],
      ['SaaStr Event Leads', 'draft', [1, 3]],
    ]);
    expect(memberships).toHaveLength(30);
    const daysOf = new Map(cadences.map((c) => [c.externalId, c.days]));
    for (const m of memberships) {
      expect(m.prospect.company).not.toBeNull();
      expect(m.userExternalId).not.toBeNull();
      expect(daysOf.get(m.cadenceExternalId)).toContain(m.dayNumber);
    }
    expect(new Set(memberships.map((m) => m.dayNumber)).size).toBeGreaterThan(3);
    expect(memberships.filter((m) => !m.isActive)).toHaveLength(2);
  });
});

describe('fake Salesloft', () => {
  it('is strict like the vendor: Bearer token, scopes, parameter ranges, error shapes, .json paths', async () => {
    const { fake } = await setup();
    const noAuth = await fetch(`${fake.apiUrl}/cadences`);
    expect(noAuth.status).toBe(401);
    expect(await noAuth.json()).toEqual({ error: expect.any(String) });

    const narrow = fake.grantTokens(undefined, ['people:read']);
    const forbidden = await fetch(`${fake.apiUrl}/cadences`, {
      headers: { authorization: `Bearer ${narrow.access_token}` },
    });
    expect(forbidden.status).toBe(403);

    const { access_token } = fake.grantTokens();
    const auth = { authorization: `Bearer ${access_token}` };
    const tooMany = await fetch(`${fake.apiUrl}/people?per_page=101`, { headers: auth });
    expect(tooMany.status).toBe(422);
    expect(await tooMany.json()).toEqual({ errors: { per_page: [expect.any(String)] } });

    const ok = await fetch(`${fake.apiUrl}/people.json?per_page=2&include_paging_counts=true`, {
      headers: auth,
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-ratelimit-endpoint-cost')).toBe('1');
    expect(Number(ok.headers.get('x-ratelimit-remaining-minute'))).toBeLessThan(600);
    const body = (await ok.json()) as { data: unknown[]; metadata: { paging: Record<string, unknown> } };
    expect(body.data).toHaveLength(2);
    expect(body.metadata.paging).toEqual({
      per_page: 2,
      current_page: 1,
      next_page: 2,
      prev_page: null,
      total_pages: 2,
      total_count: 3,
    });

    const deep = await fetch(`${fake.apiUrl}/people?page=120`, { headers: auth });
    expect(deep.headers.get('x-ratelimit-endpoint-cost')).toBe('3');
    expect((await fetch(`${fake.apiUrl}/people/999`, { headers: auth })).status).toBe(404);
  });

  it('refuses an unknown client or redirect URI at /oauth/authorize instead of redirecting', async () => {
    const fake = await startFakeSalesloft({ seed: smallTeam(), redirectUris: ['http://127.0.0.1:4000/cb'] });
    fakes.push(fake);
    const ask = (params: Record<string, string>) =>
      fetch(`${fake.authUrl}/oauth/authorize?${new URLSearchParams({ response_type: 'code', ...params })}`, {
        redirect: 'manual',
      });
    expect((await ask({ client_id: 'nope', redirect_uri: 'http://127.0.0.1:4000/cb' })).status).toBe(401);
    expect((await ask({ client_id: fake.clientId, redirect_uri: 'http://127.0.0.1:4000/evil' })).status).toBe(
      400,
    );
    expect((await ask({ client_id: fake.clientId, redirect_uri: 'http://127.0.0.1:4000/cb' })).status).toBe(
      302,
    );
  });
});

/** One cadence with `count` people on day 2, all at one company. */
function bigCadence(count: number): FakeSalesloftSeed {
  return {
    users: [{ id: 1, first_name: 'Ada', last_name: 'Admin', email: 'ada@big.example', team_admin: true }],
    accounts: [{ id: 10, name: 'Big Co', domain: 'big.example' }],
    people: Array.from({ length: count }, (_, i) => ({
      id: 1000 + i,
      first_name: `P${i}`,
      last_name: 'Person',
      email_address: `p${i}@big.example`,
      account_id: 10,
    })),
    cadences: [
      {
        id: 20,
        name: 'Big',
        owner_id: 1,
        steps: [
          { id: 200, day: 1 },
          { id: 201, day: 2 },
        ],
      },
    ],
    memberships: Array.from({ length: count }, (_, i) => ({
      id: 5000 + i,
      cadence_id: 20,
      person_id: 1000 + i,
      user_id: 1,
      step_id: 201,
    })),
  };
}
