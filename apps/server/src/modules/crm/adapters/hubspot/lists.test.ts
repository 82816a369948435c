import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { crmListMembers, crmLists, integrations } from '../../../../db/schema/index.ts';
import { createTestApp } from '../../../../../test/helpers.ts';
import { makeClient } from '../../../../../test/http.ts';
import { smallPortal, startFakeHubSpot } from '../../../../../test/fakes/hubspot.ts';
import type { FakeHubSpot } from '../../../../../test/fakes/hubspot.ts';
import { createSecretBox } from '../../../../lib/crypto.ts';
import { oauthCredentialsFrom } from '../../../integrations/vendor-http.ts';

/**
 * HubSpot lists through the real sync (issue 40 item 4): a list's members are read again only when
 * the list changed since the last sync, by the times HubSpot's list search gives (its `updatedAt`,
 * `hs_last_record_added_at`, `hs_last_record_removed_at`); a second sync of unchanged lists reads
 * no members.
 */
let app: FastifyInstance;
let fake: FakeHubSpot;
let integrationId: number;

beforeAll(async () => {
  fake = await startFakeHubSpot({ seed: smallPortal() });
  const contacts = Array.from({ length: 60 }, (_, i) => ({
    properties: { email: `m${i}@list.example`, firstname: `M${i}`, lastname: 'Listed', jobtitle: '' },
  }));
  fake.seed({ contacts, lists: [{ name: 'Trade show', contactIndexes: contacts.map((_, i) => i) }] });
  app = await createTestApp({
    workers: false,
    env: {
      HUBSPOT_CLIENT_ID: fake.clientId,
      HUBSPOT_CLIENT_SECRET: fake.clientSecret,
      HUBSPOT_API_URL: fake.apiUrl,
      HUBSPOT_AUTH_URL: fake.authUrl,
    },
  });
  const client = await makeClient(app, 'Lists');
  const [row] = await app.db
    .insert(integrations)
    .values({
      clientId: client,
      source: 'hubspot',
      credentialsEnc: createSecretBox(app.config.appSecret).encrypt(
        JSON.stringify(oauthCredentialsFrom(fake.issueTokens())),
      ),
    })
    .returning({ id: integrations.id });
  integrationId = row!.id;
});
afterAll(async () => {
  await fake?.close();
});

const memberReads = () => fake.requests.filter((r) => /^\/crm\/v3\/lists\/\d+\/memberships$/.test(r.path));
const membersOf = async (externalId: string) =>
  (
    await app.db
      .select({ ext: crmListMembers.memberExternalId })
      .from(crmListMembers)
      .innerJoin(crmLists, eq(crmLists.id, crmListMembers.listId))
      .where(and(eq(crmLists.integrationId, integrationId), eq(crmLists.externalId, externalId)))
  ).map((r) => r.ext);
async function sync() {
  fake.clearRequests();
  await app.crmSync.run({ integrationId });
  const [row] = await app.db.select().from(integrations).where(eq(integrations.id, integrationId));
  expect(row).toMatchObject({ isActive: true, lastError: null });
}

describe('HubSpot lists honour the last sync', () => {
  it('the first sync reads every list; a second of the same lists reads no members', async () => {
    await sync();
    expect(memberReads().map((r) => r.path)).toHaveLength(3);
    const trade = fake.lists.find((l) => l.name === 'Trade show')!;
    expect(await membersOf(trade.listId)).toHaveLength(60);
    await sync();
    expect(fake.requests.filter((r) => r.path === '/crm/v3/lists/search')).toHaveLength(1);
    expect(memberReads()).toEqual([]);
    expect(await membersOf(trade.listId)).toHaveLength(60);
  });

  it('a member added, a member removed, a list renamed: only that list is read again', async () => {
    const [webinar, customers] = fake.lists;
    const fay = fake.objects('contacts').find((c) => c.properties.email === 'fay@gmail.example')!;
    fake.addListMember(webinar!.listId, fay.id);
    await sync();
    expect(memberReads().map((r) => r.path)).toEqual([`/crm/v3/lists/${webinar!.listId}/memberships`]);
    expect(await membersOf(webinar!.listId)).toContain(fay.id);

    const left = customers!.members[0]!.recordId;
    fake.removeListMember(customers!.listId, left);
    await sync();
    expect(memberReads().map((r) => r.path)).toEqual([`/crm/v3/lists/${customers!.listId}/memberships`]);
    expect(await membersOf(customers!.listId)).not.toContain(left);

    fake.renameList(webinar!.listId, 'Webinar attendees (2026)');
    await sync();
    expect(memberReads()).toHaveLength(1);
    const [named] = await app.db
      .select({ name: crmLists.name })
      .from(crmLists)
      .where(and(eq(crmLists.integrationId, integrationId), eq(crmLists.externalId, webinar!.listId)));
    expect(named!.name).toBe('Webinar attendees (2026)');

    await sync();
    expect(memberReads()).toEqual([]);
  });

  it('stores a long list a batch of pages at a time, all of it (issue 43)', async () => {
    // 1,100 members: memberships pages of 250, so 4 pages make the first batch of 1,000 (STORE_BATCH).
    const contacts = Array.from({ length: 1100 }, (_, i) => ({
      properties: { email: `b${i}@batch.example`, firstname: `B${i}`, lastname: 'Batched', jobtitle: '' },
    }));
    fake.seed({ contacts, lists: [{ name: 'Big list', contactIndexes: contacts.map((_, i) => i) }] });
    const big = fake.lists.find((l) => l.name === 'Big list')!;
    const path = `/crm/v3/lists/${big.listId}/memberships`;
    fake.clearRequests();
    // The fourth page is held: stored a page at a time, the first three would be in the database
    // by the time it is asked for (each page's store comes before the read after the next).
    fake.holdAt(path, 4);
    const running = app.crmSync.run({ integrationId });
    try {
      await expect.poll(() => fake.held(), { timeout: 30_000 }).toBeGreaterThan(0);
      expect(fake.requests.filter((r) => r.path === path)).toHaveLength(4);
      expect(await membersOf(big.listId)).toEqual([]);
    } finally {
      fake.release();
    }
    await running;
    expect(memberReads().map((r) => r.path)).toEqual(Array(5).fill(path));
    expect(new Set(await membersOf(big.listId)).size).toBe(1100);
    const [stored] = await app.db
      .select({ n: crmLists.memberCount })
      .from(crmLists)
      .where(and(eq(crmLists.integrationId, integrationId), eq(crmLists.externalId, big.listId)));
    expect(stored!.n).toBe(1100);
  });
});
