import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp } from '../apps/server/src/app.ts';
import { loadConfig } from '../apps/server/src/config/env.ts';
import { clients, users } from '../apps/server/src/db/schema/index.ts';
import { signedHeaders } from '../apps/server/src/modules/hookly/index.ts';
import { report, root, scratchDatabase } from './lib.ts';

/**
 * Webhook deliveries (issue 16 "Figures"): events emitted through the product's own path
 * (`app.webhooks.emit`: the subscription cache, a delivery row per endpoint, a queue job each;
 * 16 emitters side by side, as concurrent ad clicks would),
 * delivered by the queue worker (sign, POST, record the attempt) to a receiver on loopback; timed
 * from the first emit until the receiver has every event, and against plain `fetch` posts of the
 * same signed bodies to the same receiver, one at a time like the single worker, in the same run.
 * Real PostgreSQL when BENCH_DATABASE_URL or TEST_DATABASE_URL is set (a scratch database is made
 * and dropped), else embedded PGlite. `--events N` (default 2,000).
 */

/** A receiver that answers 204 and counts what it got; `waitFor(n)` resolves at the n-th request. */
async function startReceiver() {
  let received = 0;
  let waiting: { n: number; resolve: () => void } | null = null;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.writeHead(204).end();
      if (waiting && received >= waiting.n) {
        waiting.resolve();
        waiting = null;
      }
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    get received() {
      return received;
    },
    reset() {
      received = 0;
    },
    waitFor(n: number, timeoutMs: number): Promise<void> {
      if (received >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`the receiver got ${received} of ${n} deliveries`)),
          timeoutMs,
        );
        waiting = {
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Emitters running side by side, as concurrent requests would. */
const EMITTERS = 16;

export async function run(opts: { events?: number } = {}) {
  const events = opts.events ?? 2_000;
  const adminUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
  const dir = mkdtempSync(path.join(tmpdir(), 'rally-bench-webhooks-'));
  const scratch = adminUrl ? await scratchDatabase(adminUrl) : null;
  const receiver = await startReceiver();
  try {
    const config = loadConfig({
      DATA_DIR: path.join(dir, 'data'),
      DATABASE_URL: scratch?.url,
      LOG_LEVEL: 'warn',
      SEED_DEMO: 'false',
      // The receiver is on loopback.
      ALLOW_PRIVATE_FETCH: 'true',
      WEB_DIST: path.join(root, 'apps/server/test/fixtures/web-dist'),
    });
    const app = await buildApp(config, { jobPollingSeconds: 0.5 });
    await app.ready();
    try {
      const engine = scratch ? 'PostgreSQL' : 'PGlite';
      const [client] = await app.db.insert(clients).values({ name: 'Bench' }).returning({ id: clients.id });
      const [user] = await app.db
        .insert(users)
        .values({ email: 'bench@example.com', firstName: 'Bench', lastName: 'User' })
        .returning({ id: users.id });
      const { secret } = await app.webhooks.create(client!.id, user!.id, {
        url: receiver.url,
        events: ['click'],
      });
      const data = (i: number) => ({
        target_id: '00000000-0000-4000-8000-000000000001',
        clicks: i,
        occurred_at: new Date().toISOString(),
      });
      console.log(`webhooks: ${events} events, ${engine}`);

      // Warm-up: a few deliveries through both paths.
      for (let i = 0; i < 20; i++) await app.webhooks.emit(client!.id, 'click', data(i));
      await receiver.waitFor(20, 60_000);
      receiver.reset();

      // Events come from many requests at once (ad clicks): EMITTERS emit side by side.
      let t = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: EMITTERS }, async () => {
          while (next < events) await app.webhooks.emit(client!.id, 'click', data(next++));
        }),
      );
      const emitSeconds = (performance.now() - t) / 1000;
      await receiver.waitFor(events, 600_000);
      const deliverSeconds = (performance.now() - t) / 1000;

      receiver.reset();
      const body = JSON.stringify({ type: 'click', timestamp: new Date().toISOString(), data: data(0) });
      t = performance.now();
      for (let i = 0; i < events; i++) {
        const res = await fetch(receiver.url, {
          method: 'POST',
          headers: signedHeaders(secret, `msg_bench${i}`, body),
          body,
        });
        await res.arrayBuffer();
        if (res.status !== 204) throw new Error(`the receiver answered ${res.status}`);
      }
      const fetchSeconds = (performance.now() - t) / 1000;
      if (receiver.received !== events) throw new Error(`fetch delivered ${receiver.received} of ${events}`);

      const rate = events / deliverSeconds;
      const baseline = events / fetchSeconds;
      report(
        `webhook deliveries (${engine})`,
        `${Math.round(rate)}/s (${deliverSeconds.toFixed(1)} s)`,
        `${Math.round(baseline)}/s fetch (${fetchSeconds.toFixed(1)} s)`,
        rate / baseline,
      );
      console.log(
        `  of which emitting (store + queue) ${Math.round(events / emitSeconds)}/s (${emitSeconds.toFixed(1)} s)`,
      );
    } finally {
      await app.close();
    }
  } finally {
    await receiver.close();
    await scratch?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
