import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { median, report, root, rssMiB, SERVE_NODE_ARGS, startProcess } from './lib.ts';

/**
 * Time from `node apps/server/src/main.ts` (with `npm run serve`'s Node flags) to ready on an
 * existing data folder (the usual restart), and idle RSS after 3 s, against the bare Fastify
 * hello-world (plain `node`).
 */
export async function run() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'rally-bench-'));
  const real = path.join(root, 'apps/server/src/main.ts');
  const bare = path.join(root, 'bench/hello-server.ts');
  try {
    const first = await startProcess(real, { DATA_DIR: dataDir }, SERVE_NODE_ARGS); // migrates and seeds once
    await first.stop();
    const realMs: number[] = [];
    const bareMs: number[] = [];
    let realRss = 0;
    let bareRss = 0;
    for (let i = 0; i < 3; i++) {
      const r = await startProcess(real, { DATA_DIR: dataDir }, SERVE_NODE_ARGS);
      realMs.push(r.readyMs);
      await new Promise((res) => setTimeout(res, 3000));
      realRss = rssMiB(r.child.pid!);
      await r.stop();
      const b = await startProcess(bare);
      bareMs.push(b.readyMs);
      await new Promise((res) => setTimeout(res, 3000));
      bareRss = rssMiB(b.child.pid!);
      await b.stop();
    }
    report(
      'start to ready (restart)',
      `${Math.round(median(realMs))} ms`,
      `${Math.round(median(bareMs))} ms (bare)`,
      median(realMs) / median(bareMs),
    );
    report('idle RSS', `${realRss.toFixed(0)} MiB`, `${bareRss.toFixed(0)} MiB (bare)`, realRss / bareRss);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
