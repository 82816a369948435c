import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from './helpers.ts';
import { startServer, stopServer } from './server-process.ts';
import type { ServerProcess } from './server-process.ts';
import { smallOrg, startFakeSalesforce } from './fakes/salesforce.ts';

const OPPORTUNITIES = 20_000;
const BATCH = 500;

/** A browser's part of the API conversation: cookies, the CSRF token, the chosen client. */
class Caller {
  base = '';
  clientId = '';
  private readonly cookies = new Map<string, string>();
  private csrf = '';

  async send(method: string, url: string, body?: unknown): Promise<Response> {
    if (method !== 'GET' && !this.csrf) await this.send('GET', '/v1/api/auth/csrf');
    const headers: Record<string, string> = {};
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (method !== 'GET') headers['x-xsrf-token'] = this.csrf;
    if (this.clientId) headers['x-client-id'] = this.clientId;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.base}${url}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair = ''] = c.split(';');
      const eq = pair.indexOf('=');
      this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    this.csrf = res.headers.get('x-xsrf-token') ?? this.csrf;
    return res;
  }

  async json<T>(method: string, url: string, body?: unknown, status = 200): Promise<T> {
    const res = await this.send(method, url, body);
    const text = await res.text();
    if (res.status !== status) throw new Error(`${method} ${url}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  }
}

async function poll<T>(check: () => Promise<T | null>, timeoutMs: number): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await check();
    if (value !== null) return value;
    if (Date.now() - start > timeoutMs) throw new Error(`poll: nothing within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

type Query = <T>(text: string, values?: unknown[]) => Promise<T[]>;

/** Runs `work` on the server's database while no server holds it (PGlite: the data folder). */
async function withDatabase<T>(env: Record<string, string>, work: (q: Query) => Promise<T>): Promise<T> {
  if (env.DATABASE_URL) {
    const c = new pg.Client({ connectionString: env.DATABASE_URL });
    await c.connect();
    try {
      return await work(async (text, values) => (await c.query(text, values)).rows);
    } finally {
      await c.end();
    }
  }
  const db = await PGlite.create(path.join(env.DATA_DIR!, 'db'));
  try {
    return await work(async <R>(text: string, values?: unknown[]) => (await db.query<R>(text, values)).rows);
  } finally {
    await db.close();
  }
}

const countsOf = async (q: Query, clientId: string) =>
  (
    await q<{ n: number; distinct: number }>(
      `select count(*)::int as n, count(distinct external_id)::int as distinct
         from opportunities where client_id = $1`,
      [clientId],
    )
  )[0]!;

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
    const self = await api.json<{ clients: { client_id: string }[] }>(
      'POST',
      '/v1/api/register',
      {
        first_name: 'Crash',
        last_name: 'Test',
        email: 'crash@crm.example',
        password: 'correct horse battery staple',
        company_name: 'Crash Test Co',
      },
      201,
    );
    api.clientId = self.clients[0]!.client_id;
    const base = `/v1/integration/crm/salesforce/client/${api.clientId}`;

    // whoami, stages, record types, users, accounts, contacts (6 calls), the opportunities query
    // with CurrencyIsoCode this single-currency org refuses (1), then per page of opportunities the
    // page and its contact roles (3 queries of 200 ids): the 44th call, the tenth page, waits with
    // nine pages stored.
    fake.holdAfter(6 + 1 + 9 * 4 + 1);
    const { redirect_url } = await api.json<{ redirect_url: string }>('GET', `${base}/redirect`);
    const consent = await fetch(redirect_url, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location')!);
    const callback = await api.send('GET', `${back.pathname}${back.search}`);
    expect(callback.status).toBe(302);
    expect(callback.headers.get('location')).toMatch(/connected=salesforce/);

    await poll(async () => (fake.held() > 0 ? true : null), 60_000);
    await stopServer(first, 'SIGKILL');
    expect(first.child.signalCode).toBe('SIGKILL');
    fake.release();

    const left = await withDatabase(env, (q) => countsOf(q, api.clientId));
    expect(left.n).toBe(9 * BATCH);
    expect(left.distinct).toBe(left.n);

    const second = await startServer(env);
    running.push(second);
    api.base = second.url;
    const done = await poll(async () => {
      const s = await api.json<{
        integration: { is_syncing: boolean; last_synced_at: string | null; last_error: string | null };
      }>('GET', `${base}/settings`);
      return !s.integration.is_syncing && s.integration.last_synced_at ? s : null;
    }, 120_000);
    expect(done.integration.last_error).toBeNull();
    await stopServer(second, 'SIGTERM');

    const counts = await withDatabase(env, (q) => countsOf(q, api.clientId));
    expect(counts).toEqual({ n: OPPORTUNITIES, distinct: OPPORTUNITIES });
  }, 300_000);
});
