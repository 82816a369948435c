import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../helpers.ts';
import { startServer, stopServer } from '../server-process.ts';
import type { ServerProcess } from '../server-process.ts';
import type { Query } from './crash-kit.ts';
import {
  Caller,
  connectByOAuth,
  crashMailbox,
  opportunityCounts,
  poll,
  registerOwner,
  storedBeforeKill,
  syncFinished,
  withDatabase,
} from './crash-kit.ts';
import { smallPortal, startFakeHubSpot } from '../fakes/hubspot.ts';

describe('issue 16 "SIGKILL mid-sync then finishing with every row once" (HubSpot)', async () => {
  const DEALS = 4_000;
  const PAGE = 200; // the adapter's search page
  const dir = mkdtempSync(path.join(tmpdir(), 'rally-hs-crash-'));
  const running: ServerProcess[] = [];
  const fake = await startFakeHubSpot({ seed: smallPortal() });
  afterAll(async () => {
    fake.release();
    for (const s of running) await stopServer(s, 'SIGKILL');
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const seeded = fake.objects('deals').length;
  for (let i = 0; i < DEALS - seeded; i++) {
    fake.addRecord('deals', {
      dealname: `Deal ${i}`,
      amount: String(1000 + i),
      dealstage: i % 3 ? 'appointmentscheduled' : 'closedwon',
      pipeline: 'default',
      closedate: '2026-10-31T00:00:00.000Z',
    });
  }
  const databaseUrl = await freshDatabaseUrl();
  const env: Record<string, string> = {
    SEED_DEMO: 'false',
    DATA_DIR: path.join(dir, 'data'),
    DATABASE_URL: databaseUrl ?? '',
    SMTP_URL: (await crashMailbox()).url,
    JOB_HEARTBEAT_SECONDS: '10',
    HUBSPOT_CLIENT_ID: fake.clientId,
    HUBSPOT_CLIENT_SECRET: fake.clientSecret,
    HUBSPOT_API_URL: fake.apiUrl,
    HUBSPOT_AUTH_URL: fake.authUrl,
  };

  it('connects, is killed in the middle of the deals, and the restarted server finishes the sync', async () => {
    const first = await startServer(env);
    running.push(first);
    const api = new Caller();
    api.base = first.url;
    await registerOwner(api, 'crash@hubspot.example');

    // Deals are stored a batch of five pages (STORE_BATCH, 1,000) at a time while the next batch is
    // read: with the tenth search held, the first batch is in and the second waits for its last page.
    fake.holdAt('/crm/v3/objects/deals/search', 10);
    const callback = await connectByOAuth(api, 'hubspot');
    expect(callback.status).toBe(302);
    expect(callback.headers.get('location')).toMatch(/connected=hubspot/);

    await poll(async () => (fake.held() > 0 ? true : null), 60_000);
    const stored = (q: Query) => opportunityCounts(q, api.clientId);
    await storedBeforeKill(env, stored, { n: 5 * PAGE, distinct: 5 * PAGE });
    await stopServer(first, 'SIGKILL');
    expect(first.child.signalCode).toBe('SIGKILL');
    fake.release();

    const left = await withDatabase(env, (q) => opportunityCounts(q, api.clientId));
    expect(left.n).toBe(5 * PAGE);
    expect(left.distinct).toBe(left.n);

    const second = await startServer(env);
    running.push(second);
    api.base = second.url;
    expect((await syncFinished(api, 'hubspot')).last_error).toBeNull();
    await stopServer(second, 'SIGTERM');

    const counts = await withDatabase(env, (q) => opportunityCounts(q, api.clientId));
    expect(counts).toEqual({ n: DEALS, distinct: DEALS });
  }, 300_000);
});
