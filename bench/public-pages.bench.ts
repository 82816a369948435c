import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { uuidToBase58 } from '@rally/shared';
import { createAdRenderer } from '../apps/server/src/modules/creative/ad-renderer.ts';
import { samplePortraitPng } from '../apps/server/src/modules/creative/sample-images.ts';
import { load, report, root, startProcess } from './lib.ts';

// The demo seed's Northwind landing page and first ad (apps/server/src/modules/content/demo.ts).
const DEMO_PAGE = uuidToBase58('6f1c2a8e-4b1d-4c3a-9e51-0a7d2c100101');
const DEMO_AD = uuidToBase58('6f1c2a8e-4b1d-4c3a-9e51-0a7d2c100102');
const SIZES = ['1080x1080', '1200x628', '728x90', '300x250'] as const;

/** Signs the demo user in and returns the Cookie header of the session. */
async function demoSession(base: string): Promise<string> {
  const first = await fetch(`${base}/v1/api/auth/csrf`);
  const jar = new Map<string, string>();
  const keep = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair = ''] = c.split(';');
      const i = pair.indexOf('=');
      jar.set(pair.slice(0, i), pair.slice(i + 1));
    }
  };
  keep(first);
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const res = await fetch(`${base}/v1/api/auth`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      cookie: cookie(),
      'x-xsrf-token': first.headers.get('x-xsrf-token') ?? '',
    },
    body: JSON.stringify({ email: 'demo@rally.test', password: 'rally-demo-2026' }),
  });
  if (res.status !== 200) throw new Error(`demo sign-in failed: ${res.status} ${await res.text()}`);
  keep(res);
  return cookie();
}

/**
 * Issue 8's figures: `/lp/{base58}` throughput against the bare hello-world, the first render of
 * each ad size (cold cache, over HTTP), and throughput of an ad PNG once cached.
 */
export async function run(seconds: number) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'rally-bench-'));
  const bare = await startProcess(path.join(root, 'bench/hello-server.ts'));
  const real = await startProcess(path.join(root, 'apps/server/src/main.ts'), { DATA_DIR: dataDir });
  try {
    const page = `${real.url}/lp/${DEMO_PAGE}`;
    const check = await fetch(page);
    if (check.status !== 200) throw new Error(`${page}: ${check.status}`);
    await load(`${bare.url}/healthz`, 2);
    await load(page, 2);
    const bareRps = [await load(`${bare.url}/healthz`, seconds)];
    const pageRps = [await load(page, seconds)];
    bareRps.push(await load(`${bare.url}/healthz`, seconds));
    pageRps.push(await load(page, seconds));
    const b = (bareRps[0]! + bareRps[1]!) / 2;
    const p = (pageRps[0]! + pageRps[1]!) / 2;
    report('GET /lp/{base58}', `${Math.round(p)} req/s`, `${Math.round(b)} req/s (bare)`, p / b);

    const cookie = await demoSession(real.url);
    for (const size of SIZES) {
      const started = performance.now();
      const res = await fetch(`${real.url}/content/preview/${DEMO_AD}/${size}.png`, { headers: { cookie } });
      if (res.status !== 200) throw new Error(`${size}: ${res.status}`);
      await res.arrayBuffer();
      const ms = performance.now() - started;
      const again = performance.now();
      await (
        await fetch(`${real.url}/content/preview/${DEMO_AD}/${size}.png`, { headers: { cookie } })
      ).arrayBuffer();
      const warm = performance.now() - again;
      report(`first PNG ${size}`, `${Math.round(ms)} ms`, `${warm.toFixed(1)} ms (cached)`, warm / ms);
    }
    const png = `${real.url}/content/preview/${DEMO_AD}/300x250.png`;
    const result = await autocannon({ url: png, connections: 50, duration: seconds, headers: { cookie } });
    if (result.non2xx || result.errors)
      throw new Error(`${png}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    const pngRps = result.requests.average;
    // This path reads the session and the content row per request (previews are never stale).
    report(
      'preview PNG 300x250, cached',
      `${Math.round(pngRps)} req/s`,
      `${Math.round(b)} req/s (bare)`,
      pngRps / b,
    );

    // What an ad tag adds once the image is cached: the content hash and a memory lookup.
    const input = {
      templateId: 1 as const,
      size: '300x250' as const,
      imageText: 'Pipeline up 38% in 90 days',
      title: 'Your growth audit is ready',
      colors: { background: '#0b3d91', text: '#ffffff', accent: '#ffb400' },
      assignee: { first_name: 'Jane', last_name: 'Cooper', title: 'Strategist', company_name: 'Northwind' },
      // As stored: an upload's path (hashing a photo's bytes per call would be the bench's cost).
      repPhoto: '/files/6f1c2a8e-4b1d-4c3a-9e51-0a7d2c100999',
    };
    const warmed = createAdRenderer({ cacheDir: null, loadImage: async () => samplePortraitPng(256) });
    await warmed.render(input);
    const n = 20_000;
    const started = performance.now();
    for (let i = 0; i < n; i++) await warmed.render(input);
    const hitsPerSecond = n / ((performance.now() - started) / 1000);
    report(
      'cached ad lookup (in process)',
      `${Math.round(hitsPerSecond)}/s`,
      `${Math.round(b)} req/s (bare)`,
      hitsPerSecond / b,
    );
  } finally {
    await bare.stop();
    await real.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
