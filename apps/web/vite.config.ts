import { randomUUID } from 'node:crypto';
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

const api = { target: 'http://localhost:3000', changeOrigin: false };

export default defineConfig({
  plugins: [react(), latestBuild()],
  build: { target: 'es2022', sourcemap: true, manifest: true },
  server: { proxy: { '/v1': api, '/sc': api, '/biller': api, '/t': api } },
  test: {
    name: 'web',
    environment: 'jsdom',
    setupFiles: ['./vitest.setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    // A screen test renders, clicks and waits on jsdom: 1-2 s alone, but past the 5 s default on a
    // loaded two-core machine (seen once: the ad editor's 409 test). Slow is not broken.
    testTimeout: 20_000,
  },
});
