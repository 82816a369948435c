import { defineConfig } from 'vitest/config';

/** Three projects: shared helpers (unit), the web app (unit, jsdom) and the server (API). */
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'shared', include: ['packages/shared/src/**/*.test.ts'], environment: 'node' } },
      './apps/web/vite.config.ts',
      {
        test: {
          name: 'server',
          globalSetup: ['apps/server/test/global-setup.ts'],
          include: ['apps/server/src/**/*.test.ts', 'apps/server/test/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 60_000,
          // On PGlite the files of a worker share one module graph: the app's imports load once per
          // worker, not once per file (CI's PGlite run: 416 → 299 s, imports 160 → 47 s). Not on
          // PostgreSQL, where the pools of apps that tests leave open would pile up past the
          // server's connection limit; a fresh worker per file closes them.
          isolate: Boolean(process.env.TEST_DATABASE_URL),
        },
      },
    ],
  },
});
