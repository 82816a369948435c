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
import { smallOrg, startFakeSalesforce } from '../fakes/salesforce.ts';

const OPPORTUNITIES = 20_000;
const BATCH = 500;

describe('issue 16 "SIGKILL mid-sync then finishing with every row once" (Salesforce)', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'rally-crm-crash-'));
  const running: ServerProcess[] = [];
  const fake = await startFakeSalesforce({ batchSize: BATCH, seed: smallOrg() });
  afterAll(async () => {
    fake.release();
    for (const s of running) await stopServer(s, 'SIGKILL');
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });
  for (let i = 0; i < OPPORTUNITIES; i++) {
    fake.add('Opportunity', {
      Name: `Deal ${i}`,
      StageName: i % 3 ? 'Prospecting' : 'Closed Won',
      Amount: 1000 + i,
      IsClosed: i % 3 === 0,
      IsWon: i % 3 === 0,
    });
  }
  const databaseUrl = await freshDatabaseUrl();
  const env: Record<string, string> = {
    SEED_DEMO: 'false',
    DATA_DIR: path.join(dir, 'data'),
    DATABASE_URL: databaseUrl ?? '',
    SMTP_URL: (await crashMailbox()).url,
    // The shortest heartbeat the queue allows: the killed worker's job is taken up again in seconds.
    JOB_HEARTBEAT_SECONDS: '10',
    SALESFORCE_CLIENT_ID: fake.clientId,
    SALESFORCE_CLIENT_SECRET: fake.clientSecret,
    SALESFORCE_AUTH_URL: fake.authUrl,
  };

  it('connects, is killed in the middle of the opportunities, and the restarted server finishes the sync', async () => {
    const first = await startServer(env);
    running.push(first);
    const api = new Caller();
    api.base = first.url;
    await registerOwner(api, 'crash@crm.example');

    // whoami, stages, record types, users, accounts, contacts, leads (7 calls), the opportunities query
    // with CurrencyIsoCode this single-currency org refuses (1), then per page of opportunities the
    // page and its contact roles (3 queries of 200 ids): the 45th call, the tenth page, waits. Pages
    // are stored two at a time (STORE_BATCH, 1,000) while the next two are read: eight are in.
    fake.holdAfter(7 + 1 + 9 * 4 + 1);
    const callback = await connectByOAuth(api, 'salesforce');
    expect(callback.status).toBe(302);
    expect(callback.headers.get('location')).toMatch(/connected=salesforce/);

    await poll(async () => (fake.held() > 0 ? true : null), 60_000);
    const stored = (q: Query) => opportunityCounts(q, api.clientId);
    await storedBeforeKill(env, stored, { n: 8 * BATCH, distinct: 8 * BATCH });
    await stopServer(first, 'SIGKILL');
    expect(first.child.signalCode).toBe('SIGKILL');
    fake.release();

    const left = await withDatabase(env, (q) => opportunityCounts(q, api.clientId));
    expect(left.n).toBe(8 * BATCH);
    expect(left.distinct).toBe(left.n);

    const second = await startServer(env);
    running.push(second);
    api.base = second.url;
    expect((await syncFinished(api, 'salesforce')).last_error).toBeNull();
    await stopServer(second, 'SIGTERM');

    const counts = await withDatabase(env, (q) => opportunityCounts(q, api.clientId));
    expect(counts).toEqual({ n: OPPORTUNITIES, distinct: OPPORTUNITIES });
  }, 300_000);
});
