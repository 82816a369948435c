/**
 * Several real server processes on one PostgreSQL database and a Redis of their own (issue 41): a
 * `redis-server` this file starts on a free port and stops by its pid, scratch data folders, and
 * sign-in over real HTTP. The tests that use it run only where PostgreSQL answers at
 * TEST_DATABASE_URL and `redis-server` is installed (the multi-process lane of `npm test`).
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { FeedItem } from '@rally/shared/schemas/feed';
import { Redis } from 'ioredis';
import { connectPostgres } from '../../src/db/client.ts';
import { afterFile } from '../cleanups.ts';
import { freePort } from '../free-port.ts';
import { freshDatabaseUrl, TEST_DATABASE_URL } from '../helpers.ts';
import { startServer, stopServer } from '../server-process.ts';
import type { ServerProcess } from '../server-process.ts';

/** Whether the multi-process tests can run: a PostgreSQL at TEST_DATABASE_URL (CI's second API run). */
export const CLUSTER_READY = Boolean(TEST_DATABASE_URL);
/** …and those with Redis: `redis-server` on PATH as well. */
export const CLUSTER_REDIS_READY = CLUSTER_READY && spawnSync('redis-server', ['--version']).status === 0;

export type RedisProcess = {
  url: string;
  port: number;
  child: ChildProcess;
  /** Stops this Redis (SIGTERM to its pid) and waits for it to go. */
  stop(): Promise<void>;
};

/** A `redis-server` of this test's own on a free loopback port, without persistence. */
export async function startRedis(port?: number): Promise<RedisProcess> {
  const p = port ?? (await freePort());
  const child = spawn(
    'redis-server',
    ['--port', String(p), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const url = `redis://127.0.0.1:${p}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = once(child, 'exit');
    process.kill(child.pid!, 'SIGTERM');
    await gone;
  };
  afterFile(stop);
  const probe = new Redis(url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  probe.on('error', () => {});
  for (let i = 0; ; i++) {
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      break;
    } catch {
      if (i > 100) throw new Error(`redis-server did not answer on ${p}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { url, port: p, child, stop };
}

/** The test's own handle on the cluster's database, for making clients, users and targets. */
export function dbOf(cluster: Pick<Cluster, 'databaseUrl'>): FastifyInstance {
  const database = connectPostgres(cluster.databaseUrl, 2);
  afterFile(() => database.close());
  // The test helpers (makeClient, makeUser, makeTarget…) use only `db`.
  return { db: database.db } as unknown as FastifyInstance;
}

export const CLUSTER_SECRET = 'cluster-test-secret-0123456789abcdef0123';

export type Cluster = {
  databaseUrl: string;
  instances: ServerProcess[];
  /** Starts one more instance on the same database (and Redis) with its own data folder. */
  add(env?: Record<string, string>): Promise<ServerProcess>;
  stop(s: ServerProcess, signal?: NodeJS.Signals): Promise<number | null>;
};

/**
 * Starts `count` server processes at once on one fresh database, each with a data folder of its
 * own (as separate containers have), sharing APP_SECRET and `env` (REDIS_URL…). Every process is
 * stopped, and every folder removed, when the file ends.
 */
export async function startCluster(count: number, env: Record<string, string> = {}): Promise<Cluster> {
  const databaseUrl = (await freshDatabaseUrl())!;
  const live = new Set<ServerProcess>();
  const dirs: string[] = [];
  afterFile(async () => {
    await Promise.all([...live].map((s) => stopServer(s, 'SIGKILL')));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const add = async (more: Record<string, string> = {}) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rally-cluster-'));
    dirs.push(dir);
    const s = await startServer(
      {
        DATABASE_URL: databaseUrl,
        DATA_DIR: dir,
        APP_SECRET: CLUSTER_SECRET,
        SEED_DEMO: 'false',
        LOGIN_MAX_ATTEMPTS: '1000',
        // Without Redis unless `env` gives one: not the REDIS_URL the suite itself runs with.
        REDIS_URL: '',
        ...env,
        ...more,
      },
      // A start at load 15-20 (the CI-like run of 2026-12-06) outlasted 90 s.
      { timeoutMs: 150_000 },
    );
    live.add(s);
    return s;
  };
  const started = await Promise.allSettled(Array.from({ length: count }, () => add()));
  const failed = started.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return {
    databaseUrl,
    instances: started.map((r) => (r as PromiseFulfilledResult<ServerProcess>).value),
    add,
    async stop(s, signal) {
      live.delete(s);
      return stopServer(s, signal);
    },
  };
}

/**
 * One browser's cookies, used against any instance (they share APP_SECRET, so the CSRF token one
 * instance gives is good on the others, as behind a load balancer with a single origin).
 */
export class ClusterBrowser {
  readonly cookies = new Map<string, string>();
  private csrf = '';

  async call(
    method: string,
    url: string,
    opts: { body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    if (method !== 'GET' && !this.csrf) await this.call('GET', new URL('/v1/api/auth/csrf', url).toString());
    const headers: Record<string, string> = { ...opts.headers };
    if (method !== 'GET') headers['x-xsrf-token'] = this.csrf;
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(url, {
      method,
      redirect: 'manual',
      headers,
      ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) }),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = '', ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*expires=/i.test(a) && Date.parse(a.split('=')[1]!) < Date.now());
      if (!value || expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const token = res.headers.get('x-xsrf-token');
    if (token) this.csrf = token;
    return res;
  }

  get(url: string, headers?: Record<string, string>): Promise<Response> {
    return this.call('GET', url, { headers });
  }

  async signIn(base: string, email: string, password: string): Promise<void> {
    const res = await this.call('POST', `${base}/v1/api/auth`, { body: { email, password } });
    if (res.status !== 200) throw new Error(`sign-in ${res.status}: ${await res.text()}`);
  }
}

/**
 * A feed page as a browser's EventSource keeps it: when the stream ends it reconnects (here after
 * 100 ms, not the 3 s the server asks) with Last-Event-ID, the last id it was given.
 */
export function feedPage(base: string, browser: ClusterBrowser, clientId: string) {
  const items: FeedItem[] = [];
  let lastId: string | undefined;
  let connections = 0;
  let readies = 0;
  let stopped = false;
  const controller = new AbortController();
  const loop = (async () => {
    while (!stopped) {
      connections++;
      try {
        const headers: Record<string, string> = {
          cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
          ...(lastId ? { 'last-event-id': lastId } : {}),
        };
        const res = await fetch(`${base}/sc/dashboard/feed/stream?client_id=${clientId}`, {
          headers,
          signal: controller.signal,
        });
        if (res.status !== 200) throw new Error(`stream ${res.status}`);
        const decoder = new TextDecoder();
        let buffer = '';
        for await (const chunk of res.body!) {
          buffer += decoder.decode(chunk as Uint8Array, { stream: true });
          let at: number;
          while ((at = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, at);
            buffer = buffer.slice(at + 2);
            let event = '';
            let data = '';
            for (const line of block.split('\n')) {
              if (line.startsWith('id: ')) lastId = line.slice(4);
              else if (line.startsWith('event: ')) event = line.slice(7);
              else if (line.startsWith('data: ')) data += line.slice(6);
            }
            if (event === 'ready') readies++;
            if (event === 'feed') items.push(JSON.parse(data) as FeedItem);
          }
        }
      } catch {
        if (stopped) return;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    items,
    connections: () => connections,
    readies: () => readies,
    async stop() {
      stopped = true;
      controller.abort();
      await loop;
    },
  };
}
