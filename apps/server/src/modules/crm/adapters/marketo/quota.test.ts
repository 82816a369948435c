import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { crmContacts, crmListMembers, integrations } from '../../../../db/schema/index.ts';
import { createTestApp, waitFor } from '../../../../../test/helpers.ts';
import { makeClient, signedIn } from '../../../../../test/http.ts';
import type { Browser } from '../../../../../test/http.ts';
import { startFakeMarketo } from '../../../../../test/fakes/marketo.ts';
import type { FakeMarketo } from '../../../../../test/fakes/marketo.ts';
import { marketoQuotaReset } from './adapter.ts';

/**
 * Issue 40 item 1: Marketo's daily API quota. A subscription with LISTS static lists of MEMBERS
 * leads each (100 × 1,000 by default: MARKETO_QUOTA_LISTS / MARKETO_QUOTA_MEMBERS make it smaller),
 * synced every 30 minutes: the first sync reads every list, later ones only what changed (lists
 * with Add to List / Remove from List activities, leads with changed fields). 607 stops every call
 * until the quota resets, said on the connection.
 */
const LISTS = Number(process.env.MARKETO_QUOTA_LISTS ?? 100);
const MEMBERS = Number(process.env.MARKETO_QUOTA_MEMBERS ?? 1000);
const LEADS = MEMBERS * 10; // each lead in about ten lists
let app: FastifyInstance;
let fake: FakeMarketo;
let clientId: string;
let owner: Browser;
/** One clock for the fake (its 20 s window) and the adapter's pacing; every wait moves it. */
let clock = Date.now();
const waited: number[] = [];

beforeAll(async () => {
  fake = await startFakeMarketo({ callsPer20s: 100, dailyQuota: 50_000, now: () => clock });
  const leads = Array.from({ length: LEADS }, (_, i) =>
    fake.addLead({ email: `lead${i}@quota.example`, firstName: 'Lead', lastName: String(i) }),
  );
  for (let l = 0; l < LISTS; l++) {
    const from = (l * MEMBERS) % LEADS;
    fake.addList(
      `List ${l}`,
      Array.from({ length: MEMBERS }, (_, i) => leads[(from + i) % LEADS]!.id),
    );
  }
  app = await createTestApp({
    adapters: {
      retry: {
        baseDelayMs: 1,
        maxDelayMs: 5,
        sleep: async (ms: number) => {
          waited.push(ms);
          clock += ms;
        },
      },
      now: () => clock,
    },
  });
  clientId = await makeClient(app, 'Quota');
  owner = (await signedIn(app, { [clientId]: 'purple_owner' })).browser;
}, 300_000);
afterAll(async () => {
  await fake?.close();
});

const connectionOf = async () =>
  (
    await app.db
      .select()
      .from(integrations)
      .where(and(eq(integrations.clientId, clientId), eq(integrations.source, 'marketo')))
  )[0]!;
/** REST calls (the ones the quota counts; identity calls do not) during `fn`. */
async function restCalls(fn: () => Promise<unknown>) {
  fake.clearRequests();
  await fn();
  return fake.requests.filter((r) => r.path.startsWith('/rest/'));
}
const sync = async () => app.crmSync.run({ integrationId: (await connectionOf()).id });

describe(`Marketo quota: ${LISTS} lists × ${MEMBERS} members (issue 40 item 1)`, () => {
  it('the first sync reads every list once; later syncs read only what changed', async () => {
    const first = await restCalls(async () => {
      const res = await owner.post(
        `/v1/integration/crm/marketo/client/${clientId}/connection`,
        { client_id: fake.clientId, client_secret: fake.clientSecret, rest_base_url: fake.restUrl },
        { clientId },
      );
      expect(res.statusCode).toBe(200);
      await waitFor(async () => {
        const i = await connectionOf();
        return !i.isSyncing && i.lastSyncedAt ? i : null;
      }, 240_000);
    });
    expect((await connectionOf()).lastError).toBeNull();
    const members = await app.db
      .select({ id: crmListMembers.id })
      .from(crmListMembers)
      .where(eq(crmListMembers.clientId, clientId));
    expect(members).toHaveLength(LISTS * MEMBERS);

    const quiet = await restCalls(sync);
    const last = String(fake.lists.at(-1)!.id);
    const reread = quiet.flatMap((r) => /^\/rest\/v1\/lists\/(\d+)\/leads\.json$/.exec(r.path)?.[1] ?? []);

    // One lead joins a list, one leaves another, one lead's title changes.
    const [a, b] = fake.lists;
    const outsider = fake.leads.find((l) => !a!.members.includes(l.id))!;
    fake.changeMembers(a!.id, [outsider.id]);
    fake.changeMembers(b!.id, [], [b!.members[0]!]);
    // A lead in none of the lists read again: found through "Get Lead Changes", fetched by id.
    const elsewhere = fake.leads.find(
      (l) =>
        [a!, b!, fake.lists.at(-1)!].every((x) => !x.members.includes(l.id)) &&
        fake.lists.some((x) => x.members.includes(l.id)),
    )!;
    fake.updateLead(elsewhere.id, { title: 'Head of Ops' });
    const changed = await restCalls(sync);
    const listReads = new Set(
      changed.flatMap((r) => /^\/rest\/v1\/lists\/(\d+)\/leads\.json$/.exec(r.path)?.[1] ?? []),
    );
    const perDay = first.length + 47 * quiet.length;
    console.log(
      `Marketo ${LISTS} lists × ${MEMBERS} members: first sync ${first.length} REST calls, unchanged sync ${quiet.length}, ` +
        `sync after 3 changes ${changed.length}; a day of 48 syncs ≈ ${perDay} calls`,
    );
    // Paced under 50 calls per 20 s: Marketo never answered 606 (each request is logged).
    expect(first.filter((r) => r.code === '606')).toEqual([]);
    // Nothing changed: at most the list changed last is read again (activities are stamped to the
    // second, so the cursor's own second is read again rather than risk missing one written in it).
    expect(new Set(reread)).toEqual(new Set(reread.length ? [last] : []));
    // The two changed lists (and again the boundary one, as above).
    expect(listReads).toContain(String(a!.id));
    expect(listReads).toContain(String(b!.id));
    expect([...listReads].filter((id) => id !== String(a!.id) && id !== String(b!.id))).toEqual(
      listReads.size > 2 ? [last] : [],
    );
    expect(changed.filter((r) => r.path === '/rest/v1/leads.json')).toHaveLength(1);
    const [contact] = await app.db
      .select({ title: crmContacts.title })
      .from(crmContacts)
      .where(and(eq(crmContacts.clientId, clientId), eq(crmContacts.externalId, String(elsewhere.id))));
    expect(contact?.title).toBe('Head of Ops');
    expect(fake.requests.filter((r) => r.code === '606' || r.code === '607')).toEqual([]);
    // The list reads of the boundary list aside, an unchanged sync is a handful of calls.
    expect(quiet.length - reread.length).toBeLessThan(20);
  }, 300_000);

  it('607 stops the sync with the reason on the connection; the next sync asks Marketo nothing until the reset', async () => {
    fake.failWithDailyQuota(1);
    await sync().catch(() => {});
    const row = await connectionOf();
    const until = marketoQuotaReset(Date.now()).toISOString().slice(0, 16).replace('T', ' ');
    expect(row.lastError).toBe(
      `The last sync failed and will be retried: Marketo's daily API quota is used up (error 607): Rally makes no more Marketo calls until it resets at midnight US Central (${until} UTC), then the next sync goes on.`,
    );
    const after = await restCalls(() => sync().catch(() => {}));
    expect(after).toEqual([]);
    expect(fake.requests.filter((r) => r.path === '/identity/oauth/token')).toEqual([]);
  });

  it('the quota resets at midnight US Central, in daylight time and out of it', () => {
    expect(marketoQuotaReset(Date.parse('2026-12-05T14:00:00Z')).toISOString()).toBe(
      '2026-12-06T06:00:00.000Z',
    );
    expect(marketoQuotaReset(Date.parse('2026-12-06T05:59:00Z')).toISOString()).toBe(
      '2026-12-06T06:00:00.000Z',
    );
    expect(marketoQuotaReset(Date.parse('2026-07-05T14:00:00Z')).toISOString()).toBe(
      '2026-07-06T05:00:00.000Z',
    );
    // The night clocks go back (1 November 2026): midnight after it is in standard time.
    expect(marketoQuotaReset(Date.parse('2026-10-31T12:00:00Z')).toISOString()).toBe(
      '2026-11-01T05:00:00.000Z',
    );
    expect(marketoQuotaReset(Date.parse('2026-11-01T12:00:00Z')).toISOString()).toBe(
      '2026-11-02T06:00:00.000Z',
    );
  });
});
