import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { load, report, root, startProcess } from './lib.ts';

/** /healthz throughput of the real server against a bare Fastify hello-world, loaded alternately. */
export async function run(seconds: number) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'rally-bench-'));
  const bare = await startProcess(path.join(root, 'bench/hello-server.ts'));
  const real = await startProcess(path.join(root, 'apps/server/src/main.ts'), {
    DATA_DIR: dataDir,
    SEED_DEMO: 'false',
  });
  try {
    await load(`${bare.url}/healthz`, 2);
    await load(`${real.url}/healthz`, 2);
    const bareRps = [await load(`${bare.url}/healthz`, seconds)];
    const realRps = [await load(`${real.url}/healthz`, seconds)];
    bareRps.push(await load(`${bare.url}/healthz`, seconds));
    realRps.push(await load(`${real.url}/healthz`, seconds));
    const b = (bareRps[0]! + bareRps[1]!) / 2;
    const r = (realRps[0]! + realRps[1]!) / 2;
    report('GET /healthz', `${Math.round(r)} req/s`, `${Math.round(b)} req/s (bare)`, r / b);
  } finally {
    await bare.stop();
    await real.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
