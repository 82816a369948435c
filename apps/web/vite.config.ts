import { randomUUID } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';

/** Writes dist/latest-build, which the app polls to notice a new deployment (SPEC.md §4). */
function latestBuild(): Plugin {
  return {
    name: 'rally-latest-build',
    apply: 'build',
    generateBundle() {
      this.emitFile({
        type: 'asset',
        fileName: 'latest-build',
        source: `${new Date().toISOString()} ${randomUUID()}\n`,
      });
    },
  };
}

/**
 * Writes a .br (quality 11) and a .gz (level 9) beside each text asset, which the server sends as they
 * are (@fastify/static preCompressed): smaller than compressing on the fly at the default level, and
 * no compression work per request (issue 19: /login JS budget).
 */
function precompress(): Plugin {
  let outDir = 'dist';
  return {
    name: 'rally-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      const walk = (dir: string): string[] =>
        readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
          e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)],
        );
      for (const file of walk(outDir)) {
        if (!/\.(js|css|html|svg|json)$/.test(file)) continue;
        const raw = readFileSync(file);
        if (raw.length < 1024) continue;
        writeFileSync(`${file}.gz`, gzipSync(raw, { level: 9 }));
        writeFileSync(
          `${file}.br`,
          brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
        );
      }
    },
  };
}

const api = { target: 'http://localhost:3000', changeOrigin: false };

export default defineConfig({
  plugins: [react(), latestBuild(), precompress()],
  build: {
    target: 'es2022',
    // Maps for error reports, without the comment that names them: it cost every chunk ~45 bytes
    // gzip, about 1.5 KB on /login (issue 19).
    sourcemap: 'hidden',
    manifest: true,
    rolldownOptions: {
      output: {
        codeSplitting: {
          // Left to itself the bundler hoists modules that many lazy screens share into the entry,
          // so /login downloaded the popover and scroll-lock code of the app's menus and modals
          // (issue 19: /login JS budget). Each group is its own chunk, loaded by the screens using it.
          groups: [
            // What every page runs, in one file that compresses as one: React, the router and the
            // query cache. First, because the groups below take their modules' dependencies along.
            {
              name: 'boot',
              // With the bundler's runtime and Vite's preload helper: each was a file of its own (under
              // 1 KB) that every page fetched first.
              test: /node_modules[\\/](react|react-dom|scheduler|react-router)[\\/]|^\0(rolldown\/runtime|vite\/preload-helper)/,
              priority: 20,
            },
            { name: 'zod', test: /node_modules[\\/]zod[\\/]/, priority: 15 },
            {
              name: 'overlays',
              priority: 10,
              test: /node_modules[\\/](@floating-ui|react-remove-scroll|react-remove-scroll-bar|use-sidecar|react-style-singleton|use-callback-ref|tslib|get-nonce|detect-node-es)[\\/]/,
            },
          ],
        },
      },
    },
  },
  server: { proxy: { '/v1': api, '/sc': api, '/biller': api, '/t': api } },
  test: {
    name: 'web',
    environment: 'jsdom',
    setupFiles: ['./vitest.setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    // A screen test renders, clicks and waits on jsdom: 1-2 s alone, but past the 5 s default on a
    // loaded two-core machine (seen once: the ad editor's 409 test). Slow is not broken.
    testTimeout: 45_000,
    // Screen tests wait on Mantine's transitions and lazy screens; with every lane of npm test on two
    // cores a different one or two of them ran out of time in each whole run (a menu item not shown
    // yet, a field not there), never the same one twice and none alone. Retried once, as the
    // end-to-end tests are on CI; a test that fails twice is still red.
    retry: 1,
    // One process and jsdom window per worker, not per file: the suite went 227 → 61 s alone (CPU
    // 416 → 93 s), most of it a process, a window and Mantine loaded 83 times. vitest.setup.ts gives
    // each file a fresh page load's state (the app's modules evaluated anew, storage, cookies, URL);
    // the suite also passes with the files shuffled (--sequence.shuffle.files).
    isolate: false,
  },
});
