import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import lighthouse from 'lighthouse';
import desktopConfig from 'lighthouse/core/config/desktop-config.js';
import type { Flags } from 'lighthouse';
import { chromium } from 'playwright';
import { uuidToBase58 } from '../packages/shared/src/utils/base58.ts';
import { report, root, startProcess } from './lib.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Northwind's seeded landing page (apps/server/src/modules/content/demo.ts). */
const DEMO_PAGE = `/lp/${uuidToBase58('6f1c2a8e-4b1d-4c3a-9e51-0a7d2c100101')}`;
/** A page with nothing to load: what Lighthouse gives when the page costs nothing. */
const BASELINE_HTML =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
  '<meta name="description" content="A bare page"><title>Baseline</title></head><body><main><h1>Hello</h1><p>A bare page.</p></main></body></html>';

type Row = { name: string; lcp: number; tbt: number; performance: number; accessibility: number };

/**
 * Issues 19 and 21: Lighthouse (its own Node module, driving Debian's Chromium over the DevTools
 * protocol) on `/login`, `/feed` signed in as the demo owner, and the demo landing page: LCP and
 * total blocking time (Lighthouse's desktop configuration: a dense-4G link, no CPU slowdown, simulated) and the accessibility
 * and performance scores, each beside a bare HTML page measured the same way in the same run.
 * Needs `npm run build` first. `BENCH_LIGHTHOUSE_RUNS` (default 3) runs per page; the median counts.
 */
export async function run() {
  const runs = Number(process.env.BENCH_LIGHTHOUSE_RUNS ?? 3);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'rally-bench-lh-'));
  const server = await startProcess(path.join(root, 'apps/server/src/main.ts'), { DATA_DIR: dataDir });
  const bare = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(BASELINE_HTML);
  });
  await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;
  const port = 9300 + Math.floor(Math.random() * 500);
  const profile = mkdtempSync(path.join(tmpdir(), 'rally-bench-lh-profile-'));
  // A persistent context is the browser's default one, the one Lighthouse opens its tab in, so the
  // session cookie set by signing in below is the one Lighthouse's /feed load sends.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: [`--remote-debugging-port=${port}`, '--no-sandbox', '--disable-gpu'],
  });
  try {
    const flags: Flags = {
      port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: ['performance', 'accessibility'],
      // Keep the session cookie (Lighthouse clears the origin's storage by default).
      disableStorageReset: true,
    };
    const measure = async (name: string, url: string): Promise<Row> => {
      const rows: Row[] = [];
      for (let i = 0; i < runs; i++) {
        let lhr;
        for (let attempt = 1; ; attempt++) {
          lhr = (await lighthouse(url, flags, desktopConfig))?.lhr;
          if (!lhr) throw new Error(`Lighthouse gave no result for ${url}`);
          // Debian's Chromium sometimes gives Lighthouse no navigation start on a run (NO_NAVSTART);
          // the same page measured again works, so that one error is tried again, twice at most.
          if (lhr.runtimeError?.code !== 'NO_NAVSTART' || attempt === 3) break;
        }
        if (lhr.runtimeError) throw new Error(`${url}: ${lhr.runtimeError.message}`);
        if (new URL(lhr.finalDisplayedUrl).pathname !== new URL(url).pathname)
          throw new Error(`${url} ended at ${lhr.finalDisplayedUrl} (signed out?)`);
        rows.push({
          name,
          lcp: lhr.audits['largest-contentful-paint']?.numericValue ?? NaN,
          tbt: lhr.audits['total-blocking-time']?.numericValue ?? NaN,
          performance: (lhr.categories.performance?.score ?? NaN) * 100,
          accessibility: (lhr.categories.accessibility?.score ?? NaN) * 100,
        });
      }
      rows.sort((a, b) => a.lcp - b.lcp);
      return rows[Math.floor(rows.length / 2)]!;
    };
    const baseline = await measure('bare HTML page', bareUrl);
    const pages = [
      await measure('/login', `${server.url}/login`),
      await measure('landing page (demo)', `${server.url}${DEMO_PAGE}`),
    ];
    // Signed in after /login (a signed-in visit to /login leaves for the feed).
    const csrf =
      (await context.request.get(`${server.url}/v1/api/auth/csrf`)).headers()['x-xsrf-token'] ?? '';
    const signIn = await context.request.post(`${server.url}/v1/api/auth`, {
      data: { email: 'demo@rally.test', password: 'rally-demo-2026' },
      headers: { 'x-xsrf-token': csrf },
    });
    if (!signIn.ok()) throw new Error(`demo sign-in answered ${signIn.status()}`);

    pages.push(await measure('/feed (demo owner)', `${server.url}/feed`));
    const ms = (n: number) => `${Math.round(n)} ms`;
    for (const p of pages) {
      report(
        `Lighthouse ${p.name}`,
        `LCP ${ms(p.lcp)}, TBT ${ms(p.tbt)}, performance ${p.performance.toFixed(0)}, accessibility ${p.accessibility.toFixed(0)}`,
        `LCP ${ms(baseline.lcp)}, TBT ${ms(baseline.tbt)} (bare page)`,
        p.lcp / baseline.lcp,
      );
    }
  } finally {
    await context.close();
    await server.stop();
    bare.close();
    rmSync(profile, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}
