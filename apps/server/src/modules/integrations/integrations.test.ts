import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { cadenceDays, cadences, integrations, prospects, salesReps, targets } from '../../db/schema/index.ts';
import { createTestApp, waitFor } from '../../../test/helpers.ts';
import { makeClient, signedIn } from '../../../test/http.ts';
import type { Browser } from '../../../test/http.ts';
import { demoSalesloftData, startFakeSalesloft } from '../../../test/fakes/salesloft.ts';
import type { FakeSalesloft } from '../../../test/fakes/salesloft.ts';
import { startFakeApollo } from '../../../test/fakes/apollo.ts';
import type { FakeApollo } from '../../../test/fakes/apollo.ts';

/**
 * Connecting sequence platforms and syncing them through the real job queue, against the in-repo
 * fakes on loopback (ARCHITECTURE.md §7). The product code only knows the fakes' base URLs.
 */
let app: FastifyInstance;
let salesloft: FakeSalesloft;
let apollo: FakeApollo;
let clientId: string;
let other: string;
let owner: Browser;
let sdr: Browser;
const PUBLIC_URL = 'http://localhost:3999';

beforeAll(async () => {
  salesloft = await startFakeSalesloft({ seed: demoSalesloftData() });
  apollo = await startFakeApollo();
  app = await createTestApp({
    env: {
      PUBLIC_URL,
      SALESLOFT_CLIENT_ID: salesloft.clientId,
      SALESLOFT_CLIENT_SECRET: salesloft.clientSecret,
      SALESLOFT_API_URL: salesloft.apiUrl,
      SALESLOFT_AUTH_URL: salesloft.authUrl,
      APOLLO_API_URL: apollo.apiUrl,
    },
    adapters: { retry: { baseDelayMs: 1, maxDelayMs: 5, sleep: async () => {} } },
  });
  clientId = await makeClient(app, 'Acme');
  other = await makeClient(app, 'Other');
  owner = (await signedIn(app, { [clientId]: 'purple_owner', [other]: 'purple_owner' })).browser;
  sdr = (await signedIn(app, { [clientId]: 'yellow_sdr' })).browser;
});
afterAll(async () => {
  await salesloft?.close();
  await apollo?.close();
});

const integrationOf = async (source: 'salesloft' | 'apolloio', client = clientId) =>
  (
    await app.db
      .select()
      .from(integrations)
      .where(and(eq(integrations.clientId, client), eq(integrations.source, source)))
  )[0];

const countOf = async (table: typeof salesReps | typeof cadences | typeof prospects | typeof targets) =>
  (await app.db.select({ n: count() }).from(table).where(eq(table.clientId, clientId)))[0]!.n;

/** The reason our callback gives the app, from its redirect. */
const connectError = (location: unknown) =>
  new URL(String(location), PUBLIC_URL).searchParams.get('connect_error') ?? '';

/** Walks the OAuth redirects as a browser would: our connect call, the vendor's consent, our callback. */
async function connectSalesloft(browser: Browser, returnTo: 'onboarding' | 'connections' = 'onboarding') {
  const start = await browser.post(`/v1/integration/sequence/salesloft/client/${clientId}/connect`, {
    return_to: returnTo,
  });
  expect(start.statusCode).toBe(200);
  const consent = await fetch(start.json().redirect_url, { redirect: 'manual' });
  expect(consent.status).toBe(302);
  const back = new URL(consent.headers.get('location')!);
  expect(`${back.origin}${back.pathname}`).toBe(`${PUBLIC_URL}/v1/integration/sequence/salesloft/callback`);
  return browser.get(`${back.pathname}${back.search}`, { clientId: null });
}

describe('connect a sequence platform (issue 6)', () => {
  it('Salesloft: OAuth authorization code → tokens sealed at rest → first sync lands reps, cadences with days, prospects and targets', async () => {
    const done = await connectSalesloft(owner);
    expect(done.statusCode).toBe(302);
    expect(done.headers.location).toBe(`/onboarding?client_id=${clientId}&connected=salesloft`);

    const row = await integrationOf('salesloft');
    expect(row?.isActive).toBe(true);
    expect(row?.accountName).toBeTruthy();
    // "tokens encrypted at rest": the sealed value holds no token the fake issued.
    const issued = salesloft.requests.filter((r) => r.path === '/oauth/token');
    expect(issued.length).toBeGreaterThan(0);
    expect(row?.credentialsEnc).toMatch(/^v1\./);

    const synced = await waitFor(async () => {
      const i = await integrationOf('salesloft');
      return i && !i.isSyncing && i.lastSyncedAt ? i : null;
    });
    expect(synced.lastError).toBeNull();
    expect(synced.syncProgress).toEqual({ phase: 'done', done: 1, total: 1 });

    const seed = demoSalesloftData();
    expect(await countOf(salesReps)).toBe(seed.users!.length);
    expect(await countOf(cadences)).toBe(seed.cadences!.length);
    expect(await countOf(prospects)).toBe(new Set(seed.memberships!.map((m) => m.person_id)).size);
    expect(await countOf(targets)).toBe(seed.memberships!.length);
    // Each cadence's days are the distinct days of its steps (SPEC.md §3 "Cadence day").
    for (const c of seed.cadences!) {
      const [cadence] = await app.db
        .select()
        .from(cadences)
        .where(eq(cadences.externalId, String(c.id)));
      const days = await app.db
        .select({ day: cadenceDays.dayNumber })
        .from(cadenceDays)
        .where(eq(cadenceDays.cadenceId, cadence!.id));
      const expected = [...new Set((c.steps ?? []).map((s) => Number(s.day)))];
      expect(days.map((d) => d.day).sort((a, b) => a - b)).toEqual(expect.arrayContaining(expected));
    }
    // Every target has a public token and a rep (the ad's assignee).
    const all = await app.db.select().from(targets).where(eq(targets.clientId, clientId));
    expect(new Set(all.map((t) => t.token)).size).toBe(all.length);
    expect(all.every((t) => t.dayNumber >= 1)).toBe(true);
    expect(all.some((t) => t.salesRepId !== null)).toBe(true);
  });

  it('GET /v1/rest/client/{id}/integrations shows state and sync fields, never credentials', async () => {
    const res = await owner.get(`/v1/rest/client/${clientId}/integrations`);
    expect(res.statusCode).toBe(200);
    const [i] = res.json();
    expect(i).toMatchObject({ source: 'salesloft', is_active: true, is_syncing: false, last_error: null });
    expect(i.last_synced_at).toMatch(/^\d{4}-/);
    expect(JSON.stringify(i)).not.toMatch(/credential|token/i);
  });

  it('a second sync is incremental: nothing new stays nothing new, a changed person is updated once', async () => {
    const before = await countOf(targets);
    salesloft.clearRequests();
    const res = await owner.post(`/sc/action/sync_cadences?client_id=${clientId}`);
    expect(res.statusCode).toBe(202);
    expect(res.json().is_syncing).toBe(true);
    await waitFor(async () => !(await integrationOf('salesloft'))?.isSyncing);
    expect(await countOf(targets)).toBe(before);
    const memberships = salesloft.apiRequests('cadence_memberships');
    expect(memberships.length).toBeGreaterThan(0);
    expect(memberships.every((r) => r.query.has('updated_at[gt]'))).toBe(true);
    const state = await owner.get(`/sc/action/sync_cadences?client_id=${clientId}`);
    expect(state.json()).toMatchObject({ is_syncing: false });
  });

  it('a sync already under way is not queued twice', async () => {
    const id = (await integrationOf('salesloft'))!.id;
    expect(await app.integrationSync.request(id)).toBe(true);
    expect(await app.integrationSync.request(id)).toBe(false);
    await waitFor(async () => !(await integrationOf('salesloft'))?.isSyncing);
  });

  it('GET /sc/action/sync/cadence/{id}?integration_id sets is_syncing, then last_synced_at', async () => {
    const integration = (await integrationOf('salesloft'))!;
    const [cadence] = await app.db.select().from(cadences).where(eq(cadences.clientId, clientId)).limit(1);
    const res = await owner.get(`/sc/action/sync/cadence/${cadence!.id}?integration_id=${integration.id}`);
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ id: cadence!.id, is_syncing: true });
    const after = await waitFor(async () => {
      const [c] = await app.db.select().from(cadences).where(eq(cadences.id, cadence!.id));
      return c && !c.isSyncing && c.lastSyncedAt && c.lastSyncedAt > (cadence!.lastSyncedAt ?? new Date(0))
        ? c
        : null;
    });
    expect(after.lastSyncedAt).toBeInstanceOf(Date);

    expect((await owner.get(`/sc/action/sync/cadence/abc?integration_id=${integration.id}`)).statusCode).toBe(
      422,
    );
    expect((await owner.get(`/sc/action/sync/cadence/${cadence!.id}`)).statusCode).toBe(422);
    expect(
      (await owner.get(`/sc/action/sync/cadence/999999?integration_id=${integration.id}`)).statusCode,
    ).toBe(404);
    // Another client's cadence is not found from this client.
    expect(
      (
        await owner.get(`/sc/action/sync/cadence/${cadence!.id}?integration_id=${integration.id}`, {
          clientId: other,
        })
      ).statusCode,
    ).toBe(404);
    expect(
      (await sdr.get(`/sc/action/sync/cadence/${cadence!.id}?integration_id=${integration.id}`)).statusCode,
    ).toBe(403);
  });

  it('sync_cadences: client_id must be the current client; an SDR cannot start a sync', async () => {
    expect((await owner.get(`/sc/action/sync_cadences?client_id=${other}`)).statusCode).toBe(403);
    expect((await owner.get('/sc/action/sync_cadences?client_id=nope')).statusCode).toBe(422);
    expect((await sdr.get(`/sc/action/sync_cadences?client_id=${clientId}`)).statusCode).toBe(200);
    expect((await sdr.post(`/sc/action/sync_cadences?client_id=${clientId}`)).statusCode).toBe(403);
  });
});

describe('sales reps: GET/POST /sc/sdr, POST /sc/sdr/{id}, GET /sc/sdr/cadence/{id}', () => {
  it('lists reps in the extended form, photos first then by first name (SPEC.md §5)', async () => {
    const reps = await app.db.select().from(salesReps).where(eq(salesReps.clientId, clientId));
    const withPhoto = reps.find((r) => r.firstName.startsWith('Z')) ?? reps[reps.length - 1]!;
    await app.db
      .update(salesReps)
      .set({ photoUrl: 'https://img.example/p.png' })
      .where(eq(salesReps.id, withPhoto.id));
    const res = await sdr.get('/sc/sdr');
    expect(res.statusCode).toBe(200);
    const list = res.json();
    expect(list[0].id).toBe(withPhoto.id);
    const rest = list.slice(1).map((r: { first_name: string }) => r.first_name);
    expect(rest).toEqual([...rest].sort((a: string, b: string) => a.localeCompare(b)));
    expect(Object.keys(list[0]).sort()).toEqual(
      [
        'id',
        'client_id',
        'integration_id',
        'first_name',
        'last_name',
        'email',
        'email_invalid',
        'photo_url',
        'title',
        'selected',
        'active_targets_count',
        'super_targets_count',
        'company_name',
        'calendar_url',
      ].sort(),
    );
    const total = list.reduce(
      (n: number, r: { active_targets_count: number }) => n + r.active_targets_count,
      0,
    );
    const active = await app.db
      .select({ n: count() })
      .from(targets)
      .where(and(eq(targets.clientId, clientId), eq(targets.isActive, true)));
    expect(total).toBeLessThanOrEqual(active[0]!.n);
  });

  it('POST /sc/sdr selects exactly the given reps; a foreign or unknown id is refused whole', async () => {
    const list = (await owner.get('/sc/sdr')).json() as { id: string; selected: boolean }[];
    const pick = list.slice(0, 2).map((r) => r.id);
    const res = await owner.post('/sc/sdr', { selected: pick });
    expect(res.statusCode).toBe(200);
    expect(
      res
        .json()
        .filter((r: { selected: boolean }) => r.selected)
        .map((r: { id: string }) => r.id)
        .sort(),
    ).toEqual(pick.sort());
    const bad = await owner.post('/sc/sdr', { selected: [pick[0], '00000000-0000-4000-8000-000000000000'] });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().message).toMatch(/^body\.selected/);
    // Nothing half-written: the earlier choice stands.
    const after = (await owner.get('/sc/sdr')).json() as { id: string; selected: boolean }[];
    expect(after.filter((r) => r.selected).length).toBe(2);
    expect((await owner.post('/sc/sdr', { selected: ['x'] })).statusCode).toBe(422);
    expect((await sdr.post('/sc/sdr', { selected: [] })).statusCode).toBe(403);
  });

  it('POST /sc/sdr/{id} edits a rep; bad URL 422; another client’s rep 404', async () => {
    const [rep] = (await owner.get('/sc/sdr')).json() as { id: string }[];
    const ok = await owner.post(`/sc/sdr/${rep!.id}`, {
      title: 'Account Executive',
      calendar_url: 'https://cal.example/ann',
      company_name: 'Acme',
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({
      title: 'Account Executive',
      calendar_url: 'https://cal.example/ann',
      company_name: 'Acme',
    });
    const bad = await owner.post(`/sc/sdr/${rep!.id}`, { calendar_url: 'javascript:alert(1)' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().message).toMatch(/body\.calendar_url/);
    expect((await owner.post(`/sc/sdr/${rep!.id}`, { title: 'x' }, { clientId: other })).statusCode).toBe(
      404,
    );
    expect((await sdr.post(`/sc/sdr/${rep!.id}`, { title: 'x' })).statusCode).toBe(403);
  });

  it('GET /sc/sdr/cadence/{id} lists only reps with prospects in that cadence', async () => {
    const integration = (await integrationOf('salesloft'))!;
    const [cadence] = await app.db.select().from(cadences).where(eq(cadences.clientId, clientId)).limit(1);
    const res = await sdr.get(`/sc/sdr/cadence/${cadence!.id}?integration_id=${integration.id}`);
    expect(res.statusCode).toBe(200);
    const inCadence = await app.db
      .selectDistinct({ rep: targets.salesRepId })
      .from(targets)
      .where(eq(targets.cadenceId, cadence!.id));
    expect(
      res
        .json()
        .map((r: { id: string }) => r.id)
        .sort(),
    ).toEqual(inCadence.flatMap((r) => (r.rep ? [r.rep] : [])).sort());
    expect(
      (await sdr.get(`/sc/sdr/cadence/${cadence!.id}?integration_id=${integration.id}`, { clientId: other }))
        .statusCode,
    ).toBe(403);
  });
});

describe('failures the user can act on', () => {
  it('a revoked token makes the integration inactive with a clear message', async () => {
    salesloft.expireAccessTokens();
    salesloft.revokeAll();
    await owner.post(`/sc/action/sync_cadences?client_id=${clientId}`);
    const row = await waitFor(async () => {
      const i = await integrationOf('salesloft');
      return i && !i.isActive ? i : null;
    });
    expect(row.lastError).toMatch(/Salesloft.*Reconnect/);
    const listed = (await owner.get(`/v1/rest/client/${clientId}/integrations`)).json();
    expect(listed[0]).toMatchObject({ is_active: false, is_syncing: false, last_error: row.lastError });
  });

  it('reconnecting makes it active again and clears the message', async () => {
    const done = await connectSalesloft(owner, 'connections');
    expect(done.headers.location).toBe(`/settings/connections?client_id=${clientId}&connected=salesloft`);
    const row = await waitFor(async () => {
      const i = await integrationOf('salesloft');
      return i && i.isActive && !i.isSyncing ? i : null;
    });
    expect(row.lastError).toBeNull();
  });

  it('connecting as a Salesloft non-admin says on the connection what it cannot see; an admin clears it', async () => {
    // Salesloft shows a non-admin only their own actions and users (List actions, List users).
    salesloft.setAuthorizingUser(102);
    try {
      await connectSalesloft(owner, 'connections');
      await waitFor(async () => {
        const i = await integrationOf('salesloft');
        return i && !i.isSyncing ? i : null;
      });
      const [i] = (await owner.get(`/v1/rest/client/${clientId}/integrations`)).json();
      expect(i.access_note).toMatch(/marcus\.chen@acme-cloud\.example is not a Salesloft team admin/);
      expect(i.access_note).toMatch(/Reconnect Salesloft as a team admin/);
    } finally {
      salesloft.setAuthorizingUser(undefined);
    }
    await connectSalesloft(owner, 'connections');
    await waitFor(async () => {
      const i = await integrationOf('salesloft');
      return i && !i.isSyncing ? i : null;
    });
    expect((await integrationOf('salesloft'))?.accessNote).toBeNull();
  });

  it('a callback with a forged or foreign state lands on connections with a reason, and connects nothing', async () => {
    const res = await owner.get('/v1/integration/sequence/salesloft/callback?code=abc&state=forged.sig', {
      clientId: null,
    });
    expect(res.statusCode).toBe(302);
    expect(connectError(res.headers.location)).toMatch(/could not be verified/);
    // Another user's browser cannot finish this user's flow (no flow cookie).
    const start = await owner.post(`/v1/integration/sequence/salesloft/client/${clientId}/connect`, {});
    const consent = await fetch(start.json().redirect_url, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location')!);
    const stranger = (await signedIn(app, { [clientId]: 'purple_owner' })).browser;
    const stolen = await stranger.get(`${back.pathname}${back.search}`, { clientId: null });
    expect(connectError(stolen.headers.location)).toMatch(/could not be verified/);
  });

  it('the vendor denying access comes back as a readable reason', async () => {
    const start = await owner.post(`/v1/integration/sequence/salesloft/client/${clientId}/connect`, {});
    const state = new URL(start.json().redirect_url).searchParams.get('state')!;
    const res = await owner.get(
      `/v1/integration/sequence/salesloft/callback?error=access_denied&state=${encodeURIComponent(state)}`,
      { clientId: null },
    );
    expect(connectError(res.headers.location)).toMatch(/did not grant access \(access_denied\)/);
  });

  it('connect: an unknown source 422; an SDR 403; another client in the path 403', async () => {
    const bad = await owner.post(`/v1/integration/sequence/pipedrive/client/${clientId}/connect`, {});
    expect(bad.statusCode).toBe(422);
    expect(bad.json().message).toMatch(/source/);
    expect(
      (await sdr.post(`/v1/integration/sequence/salesloft/client/${clientId}/connect`, {})).statusCode,
    ).toBe(403);
    expect(
      (await owner.post(`/v1/integration/sequence/salesloft/client/${other}/connect`, {})).statusCode,
    ).toBe(403);
  });

  it('Outreach without OAuth credentials configured says, in the user’s words, that it is not available here', async () => {
    const res = await owner.post(`/v1/integration/sequence/outreach/client/${clientId}/connect`, {});
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(
      'Outreach is not available on this installation — ask your administrator.',
    );
  });

  it('Apollo: a wrong API key is a 422 naming body.api_key; a master key connects and syncs', async () => {
    const missing = await owner.post(
      `/v1/integration/sequence/apolloio/client/${other}/connect`,
      {},
      { clientId: other },
    );
    expect(missing.statusCode).toBe(422);
    expect(missing.json().message).toMatch(/^body\.api_key/);
    const wrong = await owner.post(
      `/v1/integration/sequence/apolloio/client/${other}/connect`,
      { api_key: 'wrong-key-0123456789' },
      { clientId: other },
    );
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().errors[0].field).toBe('body.api_key');
    expect(await integrationOf('apolloio', other)).toBeUndefined();
    const ok = await owner.post(
      `/v1/integration/sequence/apolloio/client/${other}/connect`,
      { api_key: apollo.masterKey },
      { clientId: other },
    );
    expect(ok.statusCode).toBe(201);
    expect(ok.json().integration).toMatchObject({ source: 'apolloio', is_active: true, client_id: other });
    const row = await waitFor(async () => {
      const i = await integrationOf('apolloio', other);
      return i && !i.isSyncing && i.lastSyncedAt ? i : null;
    });
    expect(row.credentialsEnc).not.toContain(apollo.masterKey);
  });

  it('DELETE disconnects: credentials forgotten, inactive, data kept; a second time 404', async () => {
    const before = await countOf(targets);
    expect((await sdr.delete(`/v1/integration/sequence/salesloft/client/${clientId}`)).statusCode).toBe(403);
    const res = await owner.delete(`/v1/integration/sequence/salesloft/client/${clientId}`);
    expect(res.statusCode).toBe(204);
    const row = (await integrationOf('salesloft'))!;
    expect(row).toMatchObject({ isActive: false, credentialsEnc: null });
    expect(await countOf(targets)).toBe(before);
    const again = await owner.delete(`/v1/integration/sequence/outreach/client/${clientId}`);
    expect(again.statusCode).toBe(404);
  });
});
