import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeApollo } from '../../../../../test/fakes/apollo.ts';
import type { FakeApollo } from '../../../../../test/fakes/apollo.ts';
import { checkRequest, loadSpec, recordingProxy } from '../../../../../test/vendor-specs/check.ts';
import type { AdapterContext, Page, RemoteMembership, SequenceAdapter } from '../../port.ts';
import { APOLLO_FULL_PASS_EVERY_MS, apolloMissingSequenceMessage, createApolloAdapter } from './adapter.ts';

/**
 * Issue 40 item 5: what a real Apollo account breaks that the first fake did not. (a) A step change
 * need not move the contact's updated_at (Apollo does not document that it does), (b) the contact
 * search shows at most 500 pages, (c) a 404 on `GET /emailer_campaigns/{id}` (a read not in Apollo's
 * published reference) must not drop a sequence that Apollo still lists.
 */

const HOUR = 3_600_000;
let fake: FakeApollo;
let warnings: string[];

beforeEach(async () => {
  fake = await startFakeApollo({ now: Date.UTC(2026, 0, 5, 9, 0, 1) });
  warnings = [];
});
afterEach(() => fake.close());

function adapterWith(opts: { maxSearchPages?: number; now?: () => number } = {}): SequenceAdapter {
  return createApolloAdapter(
    { apiUrl: fake.apiUrl },
    { retry: { sleep: async (ms) => fake.clock.advance(ms), baseDelayMs: 1 }, ...opts },
  );
}

const ctx = (): AdapterContext => ({
  credentials: () => ({ kind: 'api_key', apiKey: fake.masterKey }),
  saveCredentials: () => Promise.reject(new Error('an API key is never refreshed')),
  warn: (m) => void warnings.push(m),
});

async function pages(
  adapter: SequenceAdapter,
  since: string | null,
  lastFullPass?: string | null,
): Promise<Page<RemoteMembership>[]> {
  const out: Page<RemoteMembership>[] = [];
  for await (const p of adapter.memberships(ctx(), since, { lastFullPass })) out.push(p);
  return out;
}
const items = (ps: Page<RemoteMembership>[]) => ps.flatMap((p) => p.items);
const newestOf = (ms: RemoteMembership[]) =>
  ms.reduce((max, m) => (m.updatedAt > max ? m.updatedAt : max), '');
const searches = () => fake.requests.filter((r) => r.path === '/contacts/search');

function sequenceWithContacts(count: number, stageIds: (string | null)[] = [null]) {
  const seq = fake.addSequence({
    name: 'Outbound',
    steps: [{ wait_time: 0 }, { wait_time: 2 }, { wait_time: 3 }],
  });
  const contacts = Array.from({ length: count }, (_, i) =>
    fake.addContact({
      first_name: 'P',
      last_name: `${i}`,
      contact_stage_id: stageIds[i % stageIds.length] ?? null,
      contact_campaign_statuses: [{ emailer_campaign_id: seq.id, current_step_position: 1 }],
    }),
  );
  return { seq, contacts };
}

describe('(a) a step change that does not move updated_at', () => {
  it('the fake moves a step without touching updated_at (Apollo does not document that it does)', () => {
    const { seq, contacts } = sequenceWithContacts(1);
    const before = contacts[0]!.updated_at;
    fake.clock.advance(1000);
    fake.setCampaignStatus(contacts[0]!.id, seq.id, { current_step_position: 3 });
    expect(fake.contacts.get(contacts[0]!.id)!.updated_at).toBe(before);
  });

  it('an incremental sync reads one page; a full pass every 6 hours sees the step change', async () => {
    let now = Date.UTC(2026, 0, 5, 9);
    const adapter = adapterWith({ now: () => now });
    const { seq, contacts } = sequenceWithContacts(250);
    const first = await pages(adapter, null);
    const fullPass = first.at(-1)!.fullPass!;
    expect(fullPass).toBe(new Date(now).toISOString());
    const cursor = newestOf(items(first));

    fake.clock.advance(1000);
    fake.setCampaignStatus(contacts[7]!.id, seq.id, { current_step_position: 3 });
    // Half an hour later: only what changed by updated_at (nothing), one page read.
    now += HOUR / 2;
    fake.clearRequests();
    const second = await pages(adapter, cursor, fullPass);
    expect(items(second)).toEqual([]);
    expect(second.at(-1)!.fullPass).toBeUndefined();
    expect(searches()).toHaveLength(1);

    // Six hours after the last full pass: every contact again, the step change with it.
    now = Date.parse(fullPass) + APOLLO_FULL_PASS_EVERY_MS;
    fake.clearRequests();
    const third = await pages(adapter, cursor, fullPass);
    const moved = items(third).find((m) => m.prospect.externalId === contacts[7]!.id);
    expect(moved).toMatchObject({ dayNumber: 6, contacted: true });
    expect(third.at(-1)!.fullPass).toBe(new Date(now).toISOString());
    expect(searches()).toHaveLength(3);
  });

  it('without a full pass on record (the engine had none), the sync reads everything', async () => {
    const adapter = adapterWith();
    const { seq, contacts } = sequenceWithContacts(3);
    const cursor = newestOf(items(await pages(adapter, null)));
    fake.setCampaignStatus(contacts[1]!.id, seq.id, { status: 'finished', current_step_position: 3 });
    const next = items(await pages(adapter, cursor, null));
    expect(next.find((m) => m.prospect.externalId === contacts[1]!.id)).toMatchObject({ isActive: false });
  });
});

describe('(b) accounts over the contact search cap (500 pages; 2 here)', () => {
  it('the fake refuses a page past the cap, as Apollo documents its display limit', async () => {
    fake.setSearchPageCap(2);
    sequenceWithContacts(250);
    const res = await fetch(`${fake.apiUrl}/contacts/search`, {
      method: 'POST',
      headers: { 'x-api-key': fake.masterKey, 'content-type': 'application/json' },
      body: JSON.stringify({ page: 3, per_page: 100 }),
    });
    expect(res.status).toBe(422);
  });

  it('up to twice the cap: newest created first, then oldest created first; no contact is lost', async () => {
    fake.setSearchPageCap(2);
    const { contacts } = sequenceWithContacts(350);
    const read = items(await pages(adapterWith({ maxSearchPages: 2 }), null));
    expect(new Set(read.map((m) => m.prospect.externalId))).toEqual(new Set(contacts.map((c) => c.id)));
    expect(searches().map((r) => (r.body as { sort_ascending: boolean }).sort_ascending)).toEqual([
      false,
      false,
      true,
      true,
    ]);
    expect(warnings).toEqual([]);
  });

  it('past twice the cap: each contact stage on its own (List Contact Stages); no contact is lost', async () => {
    fake.setSearchPageCap(2);
    const stages = ['Cold', 'Approaching', 'Replied'].map((name) => fake.addContactStage({ name }).id);
    const { contacts } = sequenceWithContacts(550, stages);
    const read = items(await pages(adapterWith({ maxSearchPages: 2 }), null));
    expect(read).toHaveLength(550);
    expect(new Set(read.map((m) => m.prospect.externalId))).toEqual(new Set(contacts.map((c) => c.id)));
    expect(fake.requests.some((r) => r.path === '/contact_stages')).toBe(true);
    expect(warnings).toEqual([]);
  });

  it('contacts no filter can reach are counted on the connection, not lost in silence', async () => {
    fake.setSearchPageCap(1);
    sequenceWithContacts(300); // no stages: only 200 reachable
    const read = items(await pages(adapterWith({ maxSearchPages: 1 }), null));
    expect(read).toHaveLength(200);
    expect(warnings).toEqual([expect.stringMatching(/100 of 300 contacts could not be read/)]);
  });
});

describe('(c) a 404 on GET /emailer_campaigns/{id}', () => {
  it('a sequence Apollo still lists is kept (no days: the stored ones stay) and said on the connection', async () => {
    const { seq } = sequenceWithContacts(2);
    fake.hideSequenceDetail(seq.id);
    const adapter = adapterWith();
    const cadences = [];
    for await (const p of adapter.cadences(ctx(), null)) cadences.push(...p.items);
    expect(cadences).toEqual([expect.objectContaining({ externalId: seq.id, name: 'Outbound', days: [] })]);
    const read = items(await pages(adapter, null));
    expect(read).toEqual([]);
    expect(new Set(warnings)).toEqual(new Set([apolloMissingSequenceMessage('Outbound', seq.id)]));
  });

  it('a deleted sequence (no longer listed) drops its enrolments without a warning', async () => {
    const { seq } = sequenceWithContacts(2);
    fake.sequences.delete(seq.id);
    expect(items(await pages(adapterWith(), null))).toEqual([]);
    expect(warnings).toEqual([]);
  });
});

describe("the sync's requests against Apollo's OpenAPI (test/vendor-specs/apollo-2026-12-05.json)", () => {
  it('every request is a documented operation with documented parameters, but the step read', async () => {
    fake.setSearchPageCap(1);
    const stages = ['Cold', 'New'].map((name) => fake.addContactStage({ name }).id);
    fake.addUser({ first_name: 'Dana', last_name: 'W' });
    sequenceWithContacts(250, stages);
    const proxy = await recordingProxy(fake.apiUrl);
    try {
      const adapter = createApolloAdapter({ apiUrl: proxy.url }, { maxSearchPages: 1 });
      await adapter.whoami(ctx());
      for await (const _ of adapter.users(ctx(), null));
      for await (const _ of adapter.cadences(ctx(), null));
      const read = items(await pages(adapter, null));
      expect(read).toHaveLength(250);
      const spec = loadSpec('apollo-2026-12-05.json');
      const undocumented = proxy.sent.filter((r) => checkRequest(spec, r).length);
      // Steps have no documented read (API-NOTES.md §8 question 3): the one exception.
      expect(
        new Set(undocumented.map((r) => `${r.method} ${r.path.replace(/[0-9a-f]{24}/, '{id}')}`)),
      ).toEqual(new Set(['GET /api/v1/emailer_campaigns/{id}']));
      expect(new Set(proxy.sent.map((r) => `${r.method} ${r.path}`))).toEqual(
        new Set([
          'GET /api/v1/users/search',
          'POST /api/v1/emailer_campaigns/search',
          expect.stringMatching(/^GET \/api\/v1\/emailer_campaigns\/[0-9a-f]{24}$/),
          'POST /api/v1/contacts/search',
          'GET /api/v1/contact_stages',
          'GET /api/v1/email_accounts',
        ]),
      );
    } finally {
      await proxy.close();
    }
  });
});
