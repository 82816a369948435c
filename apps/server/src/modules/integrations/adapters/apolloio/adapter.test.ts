import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeApollo } from '../../../../../test/fakes/apollo.ts';
import type { ApolloContact, FakeApollo } from '../../../../../test/fakes/apollo.ts';
import type { AdapterContext, Page, RemoteMembership, SequenceAdapter } from '../../port.ts';
import { VendorAuthError, VendorError } from '../../vendor-http.ts';
import {
  APOLLO_MASTER_KEY_MESSAGE,
  APOLLO_REVOKED_MESSAGE,
  apolloRateLimitWait,
  createApolloAdapter,
  stepDays,
} from './adapter.ts';

const HEX24 = /^[0-9a-f]{24}$/;

let fake: FakeApollo;
let adapter: SequenceAdapter;
let waits: number[];

beforeEach(async () => {
  // One second past a whole minute, so that no rate-limit window rolls over by itself mid-test.
  fake = await startFakeApollo({ now: Date.UTC(2026, 0, 5, 9, 0, 1) });
  waits = [];
  adapter = createApolloAdapter(
    { apiUrl: fake.apiUrl },
    {
      // A wait moves the fake's clock instead of the test's: rate-limit windows reset at once.
      retry: {
        sleep: async (ms) => {
          waits.push(ms);
          fake.clock.advance(ms);
        },
        baseDelayMs: 1,
      },
    },
  );
});

afterEach(() => fake.close());

function context(apiKey = fake.masterKey): AdapterContext {
  return {
    credentials: () => ({ kind: 'api_key', apiKey }),
    saveCredentials: () => Promise.reject(new Error('an API key is never refreshed')),
  };
}

async function collect<T>(pages: AsyncIterable<Page<T>>): Promise<Page<T>[]> {
  const out: Page<T>[] = [];
  for await (const page of pages) out.push(page);
  return out;
}

/** An incremental read (a full pass just done, so none is due) unless `opts` says otherwise. */
async function memberships(
  since: string | null = null,
  opts: { cadenceExternalId?: string; lastFullPass?: string | null } = {},
) {
  const lastFullPass = opts.lastFullPass === undefined ? new Date().toISOString() : opts.lastFullPass;
  return (await collect(adapter.memberships(context(), since, { ...opts, lastFullPass }))).flatMap(
    (p) => p.items,
  );
}

const contactSearches = () => fake.requests.filter((r) => r.path === '/contacts/search');

/** A small team: two reps with mailboxes, a live sequence, an archived one and a switched-off draft. */
function seedTeam() {
  const dana = fake.addUser({
    first_name: 'Dana',
    last_name: 'Whitfield',
    email: 'dana@northwind.example',
    title: 'SDR',
  });
  const marcus = fake.addUser({ first_name: 'Marcus', last_name: 'Lee', email: 'marcus@northwind.example' });
  const gone = fake.addUser({
    first_name: 'Tom',
    last_name: 'Archer',
    email: 'tom@old.example',
    deleted: true,
  });
  const marcusMailbox = fake.addEmailAccount({ user_id: marcus.id });
  const outbound = fake.addSequence({
    name: 'Q3 Outbound',
    user_id: dana.id,
    // waits 0 d, 2 d, 36 h, 30 min, 3 d → cumulative 0, 2, 3.5, 3.52, 6.52 days → days 1, 3, 4, 4, 7
    steps: [
      { wait_time: 0 },
      { wait_time: 2, wait_mode: 'day' },
      { wait_time: 36, wait_mode: 'hour' },
      { wait_time: 30, wait_mode: 'minute' },
      { wait_time: 3, wait_mode: 'day' },
    ],
  });
  const legacy = fake.addSequence({
    name: 'Legacy nurture',
    user_id: marcus.id,
    active: false,
    archived: true,
    steps: [{ wait_time: 0 }, { wait_time: 1 }],
  });
  const draft = fake.addSequence({ name: 'Draft idea', active: false, steps: [{ wait_time: 0 }] });
  const acme = fake.addAccount({ name: 'Acme Analytics', domain: 'acme.example' });

  const ann = fake.addContact({
    first_name: 'Ann',
    last_name: 'Novak',
    title: 'VP Sales',
    email: 'ann@acme.example',
    account_id: acme.id,
    owner_id: dana.id,
    contact_campaign_statuses: [
      {
        emailer_campaign_id: outbound.id,
        status: 'active',
        current_step_position: 3,
        added_by_user_id: dana.id,
        send_email_from_email_account_id: marcusMailbox.id,
      },
      { emailer_campaign_id: legacy.id, status: 'active', current_step_position: 2 },
    ],
  });
  const ben = fake.addContact({
    first_name: 'Ben',
    last_name: 'Okafor',
    organization_name: 'Blue Harbor',
    owner_id: marcus.id,
    contact_campaign_statuses: [
      {
        emailer_campaign_id: outbound.id,
        status: 'paused',
        current_step_position: 1,
        added_by_user_id: null,
      },
    ],
  });
  const cleo = fake.addContact({
    first_name: 'Cleo',
    last_name: 'Park',
    contact_campaign_statuses: [
      { emailer_campaign_id: outbound.id, status: 'finished', current_step_position: 5 },
    ],
  });
  const dev = fake.addContact({ first_name: 'Dev', last_name: 'Quinn' }); // in no sequence
  return { dana, marcus, gone, outbound, legacy, draft, acme, ann, ben, cleo, dev };
}

/** `count` contacts, each in `sequenceId`. */
function addContacts(count: number, sequenceId: string): ApolloContact[] {
  return Array.from({ length: count }, (_, i) =>
    fake.addContact({
      first_name: 'Bulk',
      last_name: `Contact ${i}`,
      contact_campaign_statuses: [{ emailer_campaign_id: sequenceId, current_step_position: 1 }],
    }),
  );
}

describe('Apollo adapter: credentials', () => {
  it('whoami names the team by its e-mail domain, sending the key only in x-api-key (API-NOTES §3: "Old clients put api_key in query/body — don\'t")', async () => {
    seedTeam();
    await expect(adapter.whoami(context())).resolves.toEqual({
      accountName: 'Apollo.io (northwind.example)',
    });
    expect(fake.requests.length).toBeGreaterThan(0);
    for (const r of fake.requests) {
      expect(r.status).toBe(200);
      expect(r.apiKey).toBe(fake.masterKey);
      expect(r.query).not.toHaveProperty('api_key');
      expect(r.body ?? {}).not.toHaveProperty('api_key');
    }
  });

  it('refuses a key that is not a master key, saying a master key is needed ("sequences/users need a master key, else 403")', async () => {
    const err = await adapter.whoami(context(fake.plainKey)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VendorAuthError);
    expect((err as Error).message).toBe(APOLLO_MASTER_KEY_MESSAGE);
    expect((err as Error).message).toMatch(/master API key/);
    expect(fake.requests.at(-1)?.status).toBe(403);
  });

  it('a revoked key raises VendorAuthError with the message for the user, without retrying', async () => {
    seedTeam();
    fake.revokeKey();
    const err = await collect(adapter.users(context(), null)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VendorAuthError);
    expect((err as Error).message).toBe(
      'Apollo no longer accepts this API key. Enter a new master API key in Settings › Connections.',
    );
    expect((err as Error).message).toBe(APOLLO_REVOKED_MESSAGE);
    await expect(memberships()).rejects.toThrow(APOLLO_REVOKED_MESSAGE);
    expect(fake.requests.map((r) => r.status)).toEqual([401, 401]);
    expect(waits).toEqual([]);
  });
});

describe('Apollo adapter: users and sequences', () => {
  it('reads every user, deleted ones as inactive', async () => {
    const { dana, gone } = seedTeam();
    const pages = await collect(adapter.users(context(), '2000-01-01T00:00:00.000Z'));
    const users = pages.flatMap((p) => p.items);
    expect(users).toHaveLength(3);
    expect(users.find((u) => u.externalId === dana.id)).toEqual({
      externalId: dana.id,
      firstName: 'Dana',
      lastName: 'Whitfield',
      email: 'dana@northwind.example',
      title: 'SDR',
      isActive: true,
      updatedAt: null,
    });
    expect(users.find((u) => u.externalId === gone.id)?.isActive).toBe(false);
  });

  it('pages over several pages of users, reading page/per_page echoed as strings ("page/per_page may come back as strings")', async () => {
    for (let i = 0; i < 230; i++) fake.addUser({ first_name: 'User', last_name: String(i) });
    const raw = (await (
      await fetch(`${fake.apiUrl}/users/search?page=2&per_page=100`, {
        headers: { 'x-api-key': fake.masterKey },
      })
    ).json()) as { pagination: Record<string, unknown> };
    expect(raw.pagination).toEqual({ page: '2', per_page: '100', total_entries: 230, total_pages: 3 });

    fake.clearRequests();
    const pages = await collect(adapter.users(context(), null));
    expect(pages.map((p) => [p.items.length, p.totalPages])).toEqual([
      [100, 3],
      [100, 3],
      [30, 3],
    ]);
    expect(fake.requests.map((r) => r.query)).toEqual([
      { page: '1', per_page: '100' },
      { page: '2', per_page: '100' },
      { page: '3', per_page: '100' },
    ]);
    const ids = pages.flatMap((p) => p.items.map((u) => u.externalId));
    expect(new Set(ids).size).toBe(230);
    for (const id of ids) expect(id).toMatch(HEX24);
  });

  it('reads sequences with their step days (wait_time × wait_mode, cumulative) and statuses', async () => {
    const { dana, marcus, outbound, legacy, draft } = seedTeam();
    const cadences = (await collect(adapter.cadences(context(), null))).flatMap((p) => p.items);
    expect(cadences).toHaveLength(3);
    const byId = new Map(cadences.map((c) => [c.externalId, c]));
    expect(byId.get(outbound.id)).toMatchObject({
      name: 'Q3 Outbound',
      status: 'active',
      ownerExternalId: dana.id,
      days: [1, 3, 4, 7],
    });
    expect(byId.get(legacy.id)).toMatchObject({
      status: 'finished',
      ownerExternalId: marcus.id,
      days: [1, 2],
    });
    expect(byId.get(draft.id)).toMatchObject({ status: 'draft', ownerExternalId: null, days: [1] });
    // The search takes q_name/page/per_page as query parameters (API-NOTES §3).
    const search = fake.requests.find((r) => r.path === '/emailer_campaigns/search')!;
    expect(search.method).toBe('POST');
    expect(search.query).toEqual({ page: '1', per_page: '100' });
  });

  it('computes a step day from waits in seconds, minutes, hours and days', () => {
    const days = stepDays([
      { position: 2, wait_time: 86_399, wait_mode: 'second' },
      { position: 1, wait_time: 0, wait_mode: 'day' },
      { position: 3, wait_time: 1, wait_mode: 'second' },
      { position: 4, wait_time: 1440, wait_mode: 'minute' },
    ]);
    expect([...days]).toEqual([
      [1, 1],
      [2, 1],
      [3, 2],
      [4, 3],
    ]);
  });
});

describe('Apollo adapter: memberships', () => {
  it('first sync: one membership per contact_campaign_status, with prospect, company, rep, day and state', async () => {
    const { dana, marcus, outbound, legacy, acme, ann, ben, cleo } = seedTeam();
    const items = await memberships();
    expect(items).toHaveLength(4);

    const annOutbound = ann.contact_campaign_statuses[0]!;
    expect(items.find((m) => m.externalId === annOutbound.id)).toEqual({
      externalId: annOutbound.id,
      cadenceExternalId: outbound.id,
      prospect: {
        externalId: ann.id,
        firstName: 'Ann',
        lastName: 'Novak',
        email: 'ann@acme.example',
        title: 'VP Sales',
        company: { externalId: acme.id, name: 'Acme Analytics', website: 'http://www.acme.example' },
        updatedAt: ann.updated_at,
      },
      // Marcus's mailbox sends the steps, though Dana enrolled her.
      userExternalId: marcus.id,
      dayNumber: 4,
      isActive: true,
      contacted: true,
      updatedAt: ann.updated_at,
    } satisfies RemoteMembership);

    // "'active' inside an archived sequence is dead — check the sequence"
    const annLegacy = items.find((m) => m.externalId === ann.contact_campaign_statuses[1]!.id)!;
    expect(annLegacy).toMatchObject({ cadenceExternalId: legacy.id, isActive: false, dayNumber: 2 });

    const benOutbound = items.find((m) => m.prospect.externalId === ben.id)!;
    expect(benOutbound).toMatchObject({
      isActive: false,
      contacted: false,
      dayNumber: 1,
      userExternalId: marcus.id, // nobody recorded as adding him: his owner
      prospect: { company: { externalId: 'name:blue harbor', name: 'Blue Harbor', website: null } },
    });
    const cleoOutbound = items.find((m) => m.prospect.externalId === cleo.id)!;
    expect(cleoOutbound).toMatchObject({
      isActive: false,
      contacted: true,
      dayNumber: 7,
      userExternalId: dana.id, // enrolled by the sequence's owner
      prospect: { company: null },
    });

    // Oldest first, and Apollo's 24-hex ids throughout.
    const times = items.map((m) => Date.parse(m.updatedAt));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    for (const m of items) {
      expect(m.externalId).toMatch(HEX24);
      expect(m.cadenceExternalId).toMatch(HEX24);
      expect(m.prospect.externalId).toMatch(HEX24);
    }
  });

  it('incremental sync returns only the contacts changed since the cursor, reading one page', async () => {
    const { outbound, ben, cleo } = seedTeam();
    addContacts(250, outbound.id);
    const first = await memberships();
    expect(first).toHaveLength(254);
    const cursor = first.reduce((max, m) => (m.updatedAt > max ? m.updatedAt : max), '');

    fake.clearRequests();
    await expect(memberships(cursor)).resolves.toEqual([]);
    expect(contactSearches()).toHaveLength(1);

    fake.clock.advance(1000);
    fake.setCampaignStatus(ben.id, outbound.id, { status: 'active', current_step_position: 2 });
    // A step change alone need not move updated_at (gaps.test.ts); an edit does.
    fake.updateContact(ben.id, (c) => {
      c.title = 'Head of Sales';
    });
    fake.updateContact(cleo.id, (c) => {
      c.title = 'COO';
    });
    fake.clearRequests();
    const second = await memberships(cursor);
    expect(second.map((m) => [m.prospect.externalId, m.dayNumber, m.isActive])).toEqual([
      [ben.id, 3, true],
      [cleo.id, 7, false],
    ]);
    expect(second[1]!.prospect.title).toBe('COO');
    expect(contactSearches()).toHaveLength(1);
    // Sorted by contact_updated_at in the body, newest first, stopping at the cursor.
    expect(contactSearches()[0]!.body).toEqual({
      sort_by_field: 'contact_updated_at',
      sort_ascending: false,
      page: 1,
      per_page: 100,
    });
  });

  it('pages over several pages of contacts (per_page 100) without duplicates', async () => {
    const { outbound } = seedTeam();
    const bulk = addContacts(250, outbound.id);
    const pages = await collect(adapter.memberships(context(), null));
    expect(contactSearches().map((r) => (r.body as { page: number }).page)).toEqual([1, 2, 3]);
    const items = pages.flatMap((p) => p.items);
    expect(items).toHaveLength(254);
    expect(new Set(items.map((m) => m.externalId)).size).toBe(254);
    expect(pages.map((p) => p.totalPages)).toEqual([3, 3, 3]);
    for (const c of bulk) expect(items.some((m) => m.prospect.externalId === c.id)).toBe(true);
  });

  it('limits to one sequence when asked ("sync now" of one cadence)', async () => {
    const { legacy, ann } = seedTeam();
    const items = await memberships(null, { cadenceExternalId: legacy.id });
    expect(items.map((m) => m.externalId)).toEqual([ann.contact_campaign_statuses[1]!.id]);
  });

  it('a contact created between two pages of a full read shifts the rest: the repeat is dropped, nothing is skipped', async () => {
    const { outbound } = seedTeam();
    const bulk = addContacts(250, outbound.id);
    // Newest created first, page 1 holds bulk[249..150]. Before page 2 is served a contact is
    // created and goes to the front, so page 2 starts with bulk[150] again.
    let added: ApolloContact | undefined;
    fake.onRequest((log) => {
      if (log.path === '/contacts/search' && (log.body as { page: number }).page === 2 && !added) {
        added = addContacts(1, outbound.id)[0];
      }
    });
    const items = await memberships();
    fake.onRequest(null);
    const [page1, page2] = contactSearches().map(
      (r) => (r.response as { contacts: { id: string }[] }).contacts,
    );
    expect(page2![0]!.id).toBe(page1![99]!.id);
    expect(new Set(items.map((m) => m.externalId)).size).toBe(items.length);
    for (const c of bulk) expect(items.some((m) => m.prospect.externalId === c.id)).toBe(true);
    // The contact created meanwhile is newer than everything returned: the next sync brings it.
    const cursor = items.reduce((max, m) => (m.updatedAt > max ? m.updatedAt : max), '');
    const next = await memberships(cursor);
    expect(next.map((m) => m.prospect.externalId)).toEqual([added!.id]);
  });
});

describe('Apollo adapter: the demo dataset', () => {
  it('syncs end to end: names, reps, sequences with days, and a membership per enrolment', async () => {
    const demo = fake.seedDemo();
    await expect(adapter.whoami(context())).resolves.toEqual({
      accountName: 'Apollo.io (northwind.example)',
    });
    const users = (await collect(adapter.users(context(), null))).flatMap((p) => p.items);
    expect(users.filter((u) => u.isActive)).toHaveLength(3);
    const cadences = (await collect(adapter.cadences(context(), null))).flatMap((p) => p.items);
    expect(cadences.map((c) => [c.name, c.status, c.days]).sort()).toEqual([
      ['Inbound demo follow-up', 'active', [1, 2, 4]],
      ['Legacy nurture 2024', 'finished', [1, 8, 22]],
      ['Q3 Outbound – VP Sales', 'active', [1, 3, 4, 7, 11]],
    ]);
    const items = await memberships();
    const enrolments = demo.contacts.flatMap((c) => c.contact_campaign_statuses);
    expect(items.map((m) => m.externalId).sort()).toEqual(enrolments.map((s) => s.id).sort());
    const repIds = new Set(users.map((u) => u.externalId));
    for (const m of items) expect(repIds.has(m.userExternalId!)).toBe(true);
  });
});

describe('Apollo adapter: rate limits and failures', () => {
  it('waits out a 429 mid-sync until the minute window resets ("Fixed minute/hour/day windows"), with no duplicates', async () => {
    const { outbound } = seedTeam();
    addContacts(250, outbound.id);
    fake.setLimits({ minute: 2 });
    const items = await memberships();
    expect(items).toHaveLength(254);
    expect(new Set(items.map((m) => m.externalId)).size).toBe(254);
    expect(contactSearches().map((r) => r.status)).toEqual([200, 200, 429, 200]);
    expect(waits).toEqual([60_000]);
  });

  it('gives up the run when the hourly window is spent rather than hold a worker for an hour', async () => {
    const { outbound } = seedTeam();
    addContacts(150, outbound.id);
    fake.setLimits({ hourly: 1 });
    const err = await memberships().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VendorError);
    expect((err as VendorError).status).toBe(429);
    expect((err as Error).message).toMatch(/rate limited for 3600 s/);
    expect(waits).toEqual([]);
  });

  it('reads the window from the headers of a 429', () => {
    const res = (headers: Record<string, string>) => new Response('', { status: 429, headers });
    expect(
      apolloRateLimitWait(res({ 'x-minute-requests-left': '0', 'x-hourly-requests-left': '40' }), 0),
    ).toBe(60_000);
    expect(
      apolloRateLimitWait(res({ 'x-minute-requests-left': '3', 'x-hourly-requests-left': '0' }), 0),
    ).toBe(3_600_000);
    expect(apolloRateLimitWait(res({ 'x-daily-requests-left': '0' }), 0)).toBe(86_400_000);
    expect(apolloRateLimitWait(res({ 'retry-after': '7' }), 0)).toBe(7000);
    expect(apolloRateLimitWait(res({}), 0)).toBeNull();
  });

  it('retries a 5xx and completes', async () => {
    seedTeam();
    fake.failNext(2, 503);
    const items = await memberships();
    expect(items).toHaveLength(4);
    expect(contactSearches().map((r) => r.status)).toEqual([503, 503, 200]);
    expect(waits).toHaveLength(2);
  });

  it('reports a persistent 5xx as a VendorError after the retries', async () => {
    seedTeam();
    fake.failNext(20, 500);
    const err = await memberships().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VendorError);
    expect((err as VendorError).status).toBe(500);
    expect(waits).toHaveLength(6);
  });
});
