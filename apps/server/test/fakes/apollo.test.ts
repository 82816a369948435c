import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeApollo } from './apollo.ts';
import type { FakeApollo } from './apollo.ts';

/** The fake must behave like Apollo where our adapter depends on it (integrations/API-NOTES.md §3). */

let fake: FakeApollo;

beforeEach(async () => {
  fake = await startFakeApollo({ now: Date.UTC(2026, 0, 5, 9, 0, 1) });
});
afterEach(() => fake.close());

function call(path: string, init: { method?: string; key?: string | null; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (init.key !== null) headers['x-api-key'] = init.key ?? fake.masterKey;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${fake.apiUrl}${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

describe('fake Apollo', () => {
  it('answers 401 "Invalid access credentials." in plain text to a missing, unknown or revoked key', async () => {
    for (const key of [null, 'nope']) {
      const res = await call('/contacts/search', { method: 'POST', key, body: {} });
      expect(res.status).toBe(401);
      expect(await res.text()).toBe('Invalid access credentials.');
    }
    fake.revokeKey(fake.plainKey);
    expect((await call('/contacts/search', { method: 'POST', key: fake.plainKey, body: {} })).status).toBe(
      401,
    );
  });

  it('refuses sequences and users to a plain key with 403 API_INACCESSIBLE, but serves it contacts', async () => {
    for (const [method, path] of [
      ['POST', '/emailer_campaigns/search'],
      ['GET', '/users/search'],
    ] as const) {
      const res = await call(path, { method, key: fake.plainKey });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ error: expect.any(String), error_code: 'API_INACCESSIBLE' });
    }
    const res = await call('/contacts/search', { method: 'POST', key: fake.plainKey, body: {} });
    expect(res.status).toBe(200);
  });

  it('rejects api_key sent as a parameter ("Old clients put api_key in query/body — don\'t")', async () => {
    expect((await call(`/users/search?api_key=${fake.masterKey}`, { key: null })).status).toBe(422);
    const res = await call('/contacts/search', {
      method: 'POST',
      key: null,
      body: { api_key: fake.masterKey },
    });
    expect(res.status).toBe(422);
  });

  it('sorts contacts by contact_updated_at both ways, pages with string page/per_page, caps per_page at 100 and pages at 500', async () => {
    const seq = fake.addSequence({ name: 'S' });
    const made = Array.from({ length: 120 }, (_, i) =>
      fake.addContact({
        first_name: 'C',
        last_name: String(i),
        contact_campaign_statuses: [{ emailer_campaign_id: seq.id }],
      }),
    );
    fake.updateContact(made[0]!.id, (c) => {
      c.title = 'now the newest';
    });
    const search = async (body: Record<string, unknown>) =>
      (await (await call('/contacts/search', { method: 'POST', body })).json()) as {
        contacts: { id: string; updated_at: string; emailer_campaign_ids: string[] }[];
        pagination: unknown;
      };
    const asc = await search({ sort_by_field: 'contact_updated_at', sort_ascending: true, per_page: 500 });
    expect(asc.pagination).toEqual({ page: '1', per_page: '100', total_entries: 120, total_pages: 2 });
    expect(asc.contacts.map((c) => c.id)).toEqual(made.slice(1, 101).map((c) => c.id));
    const desc = await search({
      sort_by_field: 'contact_updated_at',
      sort_ascending: false,
      page: 2,
      per_page: 100,
    });
    expect(desc.contacts.map((c) => c.id)).toEqual(
      made
        .slice(1, 21)
        .map((c) => c.id)
        .reverse(),
    );
    expect((await search({ sort_by_field: 'contact_updated_at' })).contacts[0]!.id).toBe(made[0]!.id);
    expect(desc.contacts[0]!.emailer_campaign_ids).toEqual([seq.id]);
    for (const c of desc.contacts) expect(c.id).toMatch(/^[0-9a-f]{24}$/);

    expect((await call('/contacts/search', { method: 'POST', body: { page: 501 } })).status).toBe(422);
    expect((await call('/contacts/search', { method: 'POST', body: { sort_by_field: 'name' } })).status).toBe(
      422,
    );
  });

  it("limits each endpoint per fixed minute window with Apollo's headers and a plain-text 429 naming endpoint and window", async () => {
    fake.setLimits({ minute: 2 });
    const first = await call('/contacts/search', { method: 'POST', body: {} });
    expect(first.headers.get('x-rate-limit-minute')).toBe('2');
    expect(first.headers.get('x-minute-requests-left')).toBe('1');
    expect(first.headers.get('x-minute-usage')).toBe('1');
    expect(first.headers.get('x-hourly-requests-left')).not.toBeNull();
    await call('/contacts/search', { method: 'POST', body: {} });
    const limited = await call('/contacts/search', { method: 'POST', body: {} });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-minute-requests-left')).toBe('0');
    expect(await limited.text()).toMatch(/api\/v1\/contacts\/search is 2 times per minute/);
    // Another endpoint has its own count.
    expect((await call('/users/search')).status).toBe(200);
    fake.clock.advance(60_000);
    expect((await call('/contacts/search', { method: 'POST', body: {} })).status).toBe(200);
  });

  it('serves sequences with their steps, a contact by id, email accounts, and the older /v1 base', async () => {
    const { sequences, contacts } = fake.seedDemo();
    const res = await call(`/emailer_campaigns/${sequences[1]!.id}`);
    const detail = (await res.json()) as { emailer_campaign: { name: string }; emailer_steps: unknown[] };
    expect(detail.emailer_campaign.name).toBe('Inbound demo follow-up');
    expect(detail.emailer_steps).toEqual([
      expect.objectContaining({ position: 1, wait_time: 30, wait_mode: 'minute' }),
      expect.objectContaining({ position: 2, wait_time: 36, wait_mode: 'hour' }),
      expect.objectContaining({ position: 3, wait_time: 2, wait_mode: 'day' }),
    ]);
    const contact = (await (await call(`/contacts/${contacts[0]!.id}`)).json()) as {
      contact: { id: string };
    };
    expect(contact.contact.id).toBe(contacts[0]!.id);
    expect((await call(`/contacts/${fake.newId()}`)).status).toBe(404);
    const mailboxes = (await (await call('/email_accounts')).json()) as { email_accounts: unknown[] };
    expect(mailboxes.email_accounts).toHaveLength(3);
    const old = await fetch(`${fake.apiUrl.replace('/api/v1', '/v1')}/users/search`, {
      headers: { 'x-api-key': fake.masterKey },
    });
    expect(old.status).toBe(200);
  });

  it('the demo dataset: 3 reps and a deleted user, 3 sequences (one archived), 30 contacts, most in a sequence', () => {
    const demo = fake.seedDemo();
    expect(demo.users).toHaveLength(4);
    expect(demo.sequences.map((s) => s.archived)).toEqual([false, false, true]);
    expect(demo.contacts).toHaveLength(30);
    const enrolled = demo.contacts.filter((c) => c.contact_campaign_statuses.length > 0);
    expect(enrolled.length).toBeGreaterThan(15);
    expect(new Set(demo.contacts.map((c) => c.organization_name)).size).toBe(8);
  });

  it('failNext answers the next requests with the given status, then serves normally', async () => {
    fake.failNext(1, 502);
    expect((await call('/users/search')).status).toBe(502);
    expect((await call('/users/search')).status).toBe(200);
    expect(fake.requests.map((r) => [r.method, r.path, r.status])).toEqual([
      ['GET', '/users/search', 502],
      ['GET', '/users/search', 200],
    ]);
  });
});
