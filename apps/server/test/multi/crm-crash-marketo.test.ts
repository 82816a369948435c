import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../helpers.ts';
import { startServer, stopServer } from '../server-process.ts';
import type { ServerProcess } from '../server-process.ts';
import {
  Caller,
  crashMailbox,
  poll,
  registerOwner,
  storedBeforeKill,
  syncFinished,
  withDatabase,
} from './crash-kit.ts';
import type { Query } from './crash-kit.ts';
import { startFakeMarketo } from '../fakes/marketo.ts';

/** The client's Marketo leads, lists and list members: rows, and distinct keys of each. */
const marketoCounts = async (q: Query, clientId: string) =>
  (
    await q<Record<string, number>>(
      `select
         (select count(*)::int from crm_contacts where client_id = $1) as contacts,
         (select count(distinct external_id)::int from crm_contacts where client_id = $1) as distinct_contacts,
         (select count(*)::int from crm_lists where client_id = $1) as lists,
         (select count(distinct external_id)::int from crm_lists where client_id = $1) as distinct_lists,
         (select count(*)::int from crm_list_members where client_id = $1) as members,
         (select count(distinct (list_id, member_external_id))::int from crm_list_members
           where client_id = $1) as distinct_members,
         (select count(*)::int from crm_list_members where client_id = $1 and contact_id is null) as unlinked`,
      [clientId],
    )
  )[0]!;

describe('issue 16 "SIGKILL mid-sync then finishing with every row once" (Marketo)', async () => {
  const LEADS = 3_000;
  const PAGE = 300; // the adapter's batchSize, Marketo's largest
  const dir = mkdtempSync(path.join(tmpdir(), 'rally-mkto-crash-'));
  const running: ServerProcess[] = [];
  const fake = await startFakeMarketo();
  afterAll(async () => {
    fake.release();
    for (const s of running) await stopServer(s, 'SIGKILL');
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const leads = Array.from({ length: LEADS }, (_, i) =>
    fake.addLead({ email: `lead${i}@crash.example`, firstName: 'Lead', lastName: String(i) }),
  );
  // Every lead is in the big list; half of them in a second one; one list is empty.
  const big = fake.addList(
    'Everyone',
    leads.map((l) => l.id),
  );
  fake.addList(
    'Webinar',
    leads.filter((_, i) => i % 2 === 0).map((l) => l.id),
    'Webinar 2026',
  );
  fake.addList('Empty', []);
  const databaseUrl = await freshDatabaseUrl();
  const env: Record<string, string> = {
    SEED_DEMO: 'false',
    DATA_DIR: path.join(dir, 'data'),
    DATABASE_URL: databaseUrl ?? '',
    SMTP_URL: (await crashMailbox()).url,
    JOB_HEARTBEAT_SECONDS: '10',
    // The fake listens on loopback, which a user-given Marketo URL may not otherwise name.
    ALLOW_PRIVATE_FETCH: 'true',
  };

  it('connects, is killed after the contacts and again in the middle of the list members, and the restarted server finishes the sync', async () => {
    const first = await startServer(env);
    running.push(first);
    const api = new Caller();
    api.base = first.url;
    await registerOwner(api, 'crash@marketo.example');

    // A first sync reads each list once, its leads with their fields (issue 43): the contacts phase
    // keeps each list's members for the lists phase, which then asks Marketo nothing. So the first
    // kill comes after the contacts, at the deleted leads' paging token (the first call after them).
    fake.holdAt('/rest/v1/activities/pagingtoken.json', 1);
    const connected = await api.json<{ integration: { is_active: boolean } }>(
      'POST',
      `/v1/integration/crm/marketo/client/${api.clientId}/connection`,
      { client_id: fake.clientId, client_secret: fake.clientSecret, rest_base_url: fake.restUrl },
    );
    expect(connected.integration.is_active).toBe(true);

    await poll(async () => (fake.held() > 0 ? true : null), 60_000);
    await storedBeforeKill(env, async (q) => (await marketoCounts(q, api.clientId)).contacts, LEADS);
    await stopServer(first, 'SIGKILL');
    expect(first.child.signalCode).toBe('SIGKILL');
    fake.release();
    expect(await withDatabase(env, (q) => marketoCounts(q, api.clientId))).toMatchObject({
      contacts: LEADS,
      distinct_contacts: LEADS,
      lists: 0,
      members: 0,
    });

    // The retry's contacts phase reads only what changed since the stored cursor, so its lists phase
    // reads the members from Marketo: the big list's 10 pages of ids, stored four pages at a time
    // (STORE_BATCH, 1,000: 1,200) while the next four are read. At its fifth call four pages are in.
    fake.holdAt(`/rest/v1/lists/${big.id}/leads.json`, 5);
    const retry = await startServer(env);
    running.push(retry);
    await poll(async () => (fake.held() > 0 ? true : null), 60_000);
    await storedBeforeKill(env, async (q) => (await marketoCounts(q, api.clientId)).members, 4 * PAGE);
    await stopServer(retry, 'SIGKILL');
    expect(retry.child.signalCode).toBe('SIGKILL');
    fake.release();

    const left = await withDatabase(env, (q) => marketoCounts(q, api.clientId));
    expect(left).toMatchObject({ contacts: LEADS, distinct_contacts: LEADS, lists: 3, members: 4 * PAGE });

    const second = await startServer(env);
    running.push(second);
    api.base = second.url;
    expect((await syncFinished(api, 'marketo')).last_error).toBeNull();
    const settings = await api.json<{ counts: Record<string, number> }>(
      'GET',
      `/v1/integration/crm/marketo/client/${api.clientId}/settings`,
    );
    expect(settings.counts).toMatchObject({ contacts: LEADS, lists: 3 });
    await stopServer(second, 'SIGTERM');

    const members = LEADS + LEADS / 2;
    const counts = await withDatabase(env, (q) => marketoCounts(q, api.clientId));
    expect(counts).toEqual({
      contacts: LEADS,
      distinct_contacts: LEADS,
      lists: 3,
      distinct_lists: 3,
      members,
      distinct_members: members,
      unlinked: 0,
    });
    const sizes = await withDatabase(env, (q) =>
      q<{ name: string; member_count: number }>(
        'select name, member_count from crm_lists where client_id = $1 order by name',
        [api.clientId],
      ),
    );
    expect(sizes).toEqual([
      { name: 'Empty', member_count: 0 },
      { name: 'Everyone', member_count: LEADS },
      { name: 'Webinar', member_count: LEADS / 2 },
    ]);
  }, 300_000);
});
