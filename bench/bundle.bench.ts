import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { chromium } from 'playwright';
import { report, root, startProcess } from './lib.ts';

type Chunk = { file: string; imports?: string[]; isEntry?: boolean; src?: string };

const dist = path.join(root, 'apps/web/dist');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The bytes the server sends for a file in an encoding: the build's precompressed copy when there is one. */
function served(file: string, encoding: 'gzip' | 'br'): number {
  const full = path.join(dist, file);
  const pre = `${full}.${encoding === 'gzip' ? 'gz' : 'br'}`;
  if (existsSync(pre)) return readFileSync(pre).length;
  const raw = readFileSync(full);
  return encoding === 'gzip' ? gzipSync(raw).length : brotliCompressSync(raw).length;
}

/**
 * Issue 19: "/login JavaScript ≤ 150 KB gzip as the browser downloads it (all scripts fetched before
 * the sign-in button is usable)". Two measures, each beside all of the app's JavaScript:
 * 1. the build's manifest: the entry, its static imports and the login route's chunk with its imports,
 *    as the server sends them to a gzip client and to a brotli one;
 * 2. Chromium loading /login from the real server: the scripts it requested before the enabled
 *    'Sign in' button entered the DOM, by their transfer size (Chromium asks for brotli), and what
 *    it fetched after (deferred work: add-on configuration, the toast container).
 * Needs `npm run build` first.
 */
export async function run() {
  const manifest = JSON.parse(readFileSync(path.join(dist, '.vite/manifest.json'), 'utf8')) as Record<
    string,
    Chunk
  >;
  const closure = (key: string, seen = new Set<string>()) => {
    if (seen.has(key)) return seen;
    seen.add(key);
    for (const i of manifest[key]?.imports ?? []) closure(i, seen);
    return seen;
  };
  const entry = Object.keys(manifest).find((k) => manifest[k]?.isEntry);
  const login = Object.keys(manifest).find((k) => k.endsWith('app/routes/login.tsx'));
  if (!entry || !login) throw new Error('manifest has no entry or login chunk: run npm run build');
  const needed = [...new Set([...closure(entry), ...closure(login)])].map((k) => manifest[k]!.file);
  const allJs = Object.values(manifest)
    .map((c) => c.file)
    .filter((f) => f.endsWith('.js'));
  const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  for (const encoding of ['gzip', 'br'] as const) {
    const loginBytes = needed.reduce((n, f) => n + served(f, encoding), 0);
    const allBytes = allJs.reduce((n, f) => n + served(f, encoding), 0);
    report(
      `/login JS, build (${encoding})`,
      `${kib(loginBytes)} in ${needed.length} files`,
      `${kib(allBytes)} (all JS)`,
      loginBytes / allBytes,
    );
  }

  if (!existsSync(CHROMIUM)) {
    console.log(`/login JS, browser: skipped (no Chromium at ${CHROMIUM}; apt-get install chromium)`);
    return;
  }
  const server = await startProcess(path.join(root, 'apps/server/src/main.ts'), {
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'rally-bench-')),
  });
  const browser = await chromium.launch({ executablePath: CHROMIUM });
  try {
    // The page's CSP (script-src 'self') refuses the string predicates below, which Playwright runs
    // with eval; it allows the app's own scripts either way.
    const page = await browser.newPage({ bypassCSP: true });
    const sizes = new Map<string, number>();
    page.on('requestfinished', (r) => {
      if (r.url().endsWith('.js'))
        void r
          .sizes()
          .then((s) => sizes.set(r.url(), s.responseBodySize))
          .catch(() => {});
    });
    // The moment React commits the enabled Sign in button, seen by a MutationObserver. Page code is
    // given as strings: this file is type-checked for Node, without the DOM's types.
    await page.addInitScript(`new MutationObserver((_, observer) => {
      const button = [...document.querySelectorAll('button')].find(
        (b) => b.textContent.trim() === 'Sign in' && !b.disabled);
      if (!button) return;
      window.usableAt = performance.now();
      observer.disconnect();
    }).observe(document, { childList: true, subtree: true });`);
    await page.goto(`${server.url}/login`);
    await page.waitForFunction('window.usableAt');
    await page.waitForTimeout(3000);
    const { usableAt, scripts } = (await page.evaluate(`({
      usableAt: window.usableAt,
      scripts: performance.getEntriesByType('resource').filter((e) => e.name.endsWith('.js'))
        .map((e) => ({ url: e.name, start: e.startTime })),
    })`)) as { usableAt: number; scripts: { url: string; start: number }[] };
    const before = scripts.filter((s) => s.start < usableAt);
    const after = scripts.filter((s) => s.start >= usableAt);
    const bytes = (list: typeof scripts) => list.reduce((n, s) => n + (sizes.get(s.url) ?? 0), 0);
    report(
      '/login JS, Chromium (br)',
      `${kib(bytes(before))} in ${before.length} scripts`,
      `${kib(bytes(after))} in ${after.length} after`,
      bytes(before) / Math.max(1, bytes(before) + bytes(after)),
    );
    console.log(`  sign-in button usable at ${usableAt.toFixed(0)} ms after navigation start`);
    // BENCH_BUNDLE_LIST=1 names each script and its transfer size, before and after.
    if (process.env.BENCH_BUNDLE_LIST)
      for (const [when, list] of [
        ['before', before],
        ['after', after],
      ] as const)
        for (const s of list)
          console.log(
            `  ${when} ${s.start.toFixed(0).padStart(6)} ms ${kib(sizes.get(s.url) ?? 0).padStart(10)}  ${new URL(s.url).pathname}`,
          );
  } finally {
    await browser.close();
    await server.stop();
  }
}
