import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smallPortal, startFakeHubSpot } from '../../../../../test/fakes/hubspot.ts';
import type { FakeHubSpot } from '../../../../../test/fakes/hubspot.ts';
import { oauthCredentialsFrom } from '../../../integrations/vendor-http.ts';
import type { AdapterContext, CrmPage } from '../../port.ts';
import { createHubSpotAdapter } from './adapter.ts';

/**
 * HubSpot's search index lags behind its records, and records get merged (issue 40 item 4): an
 * incremental search overlaps the last sync by a few minutes so a record indexed late is still read,
 * and records merged into another are given as deleted (the one kept is read as changed).
 */
let fake: FakeHubSpot;
let ctx: AdapterContext;
const adapter = () =>
  createHubSpotAdapter(
    { apiUrl: fake.apiUrl, authUrl: fake.authUrl, clientId: fake.clientId, clientSecret: fake.clientSecret },
    { retry: { baseDelayMs: 1, maxDelayMs: 5, sleep: async () => {} } },
  );
const drain = async <T>(pages: AsyncIterable<CrmPage<T>>) => {
  const out: T[] = [];
  for await (const p of pages) out.push(...p.items);
  return out;
};
const newest = (items: { updatedAt: string | null }[]) =>
  items.map((i) => i.updatedAt ?? '').reduce((a, b) => (a > b ? a : b), '');

beforeAll(async () => {
  fake = await startFakeHubSpot({ seed: smallPortal() });
  const creds = oauthCredentialsFrom(fake.issueTokens());
  ctx = { credentials: () => creds, saveCredentials: async () => {} };
});
afterAll(async () => {
  await fake?.close();
});

describe('HubSpot search lag and merged records', () => {
  it('a contact indexed after the sync that passed its modified time is read by the next one', async () => {
    const first = await drain(adapter().contacts(ctx, null));
    const [ann, bo] = fake.objects('contacts');
    // Ann changes first but reaches the search index late; Bo changes after her and is indexed.
    fake.update('contacts', ann!.id, { jobtitle: 'Chief Technology Officer' });
    fake.lagSearch('contacts', ann!.id);
    fake.update('contacts', bo!.id, { jobtitle: 'SVP Sales' });
    const second = await drain(adapter().contacts(ctx, newest(first)));
    expect(second.map((c) => c.externalId)).toContain(bo!.id);
    expect(second.map((c) => c.externalId)).not.toContain(ann!.id);
    // The index catches up: the next sync, from Bo's time (after Ann's), still reads Ann.
    fake.indexSearch();
    const third = await drain(adapter().contacts(ctx, newest(second)));
    expect(third.find((c) => c.externalId === ann!.id)).toMatchObject({ title: 'Chief Technology Officer' });
  });

  it('a contact and a company merged into others are given as deleted; the ones kept are read', async () => {
    const since = new Date(Date.now() - 86_400_000).toISOString();
    const [, , cy, di] = fake.objects('contacts');
    const [globex, initech] = fake.objects('companies');
    const before = newest(await drain(adapter().contacts(ctx, null)));
    fake.merge('contacts', cy!.id, di!.id);
    fake.merge('companies', globex!.id, initech!.id);
    expect(await drain(adapter().deletedContacts!(ctx, since))).toEqual([di!.id]);
    expect(await drain(adapter().deletedAccounts!(ctx, since))).toEqual([initech!.id]);
    expect((await drain(adapter().contacts(ctx, before))).map((c) => c.externalId)).toContain(cy!.id);
    // Archived ones still come from the recycling bin, after the merged ones.
    fake.archive('contacts', cy!.id);
    expect(await drain(adapter().deletedContacts!(ctx, since))).toEqual([cy!.id]);
  });

  it('a deal whose company was merged into another is read again with the company kept as its account', async () => {
    // A portal of its own with a clock: the deal stays older than the search overlap.
    let at = Date.now();
    const own = await startFakeHubSpot({ seed: smallPortal(), now: () => at });
    try {
      const creds = oauthCredentialsFrom(own.issueTokens());
      const c: AdapterContext = { credentials: () => creds, saveCredentials: async () => {} };
      const a = createHubSpotAdapter(
        { apiUrl: own.apiUrl, authUrl: own.authUrl, clientId: own.clientId, clientSecret: own.clientSecret },
        { retry: { baseDelayMs: 1, maxDelayMs: 5, sleep: async () => {} } },
      );
      const pilot = own.objects('deals').find((d) => d.properties.dealname === 'Initech pilot')!;
      const [globex, initech] = own.objects('companies');
      const first = await drain(a.opportunities!(c, null));
      expect(first.find((o) => o.externalId === pilot.id)!.accountExternalId).toBe(initech!.id);
      // 20 minutes later another deal changes, then Initech is merged into Globex.
      at += 20 * 60_000;
      const renewal = own.objects('deals').find((d) => d.properties.dealname === 'Globex renewal')!;
      own.update('deals', renewal.id, { amount: '31000' });
      const second = await drain(a.opportunities!(c, newest(first)));
      own.merge('companies', globex!.id, initech!.id);
      const again = await drain(a.opportunities!(c, newest(second)));
      expect(again.find((o) => o.externalId === pilot.id)).toMatchObject({ accountExternalId: globex!.id });
    } finally {
      await own.close();
    }
  });
});
