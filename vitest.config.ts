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
          // The files of a worker share one module graph: the app's imports load once per worker,
          // not once per file (on this machine the PGlite run went 416 → 315 s, PostgreSQL 328 →
          // 229 s). It relies on every test app and database being closed (test/helpers.ts
          // cleanUp); a leak shows as "too many clients" on PostgreSQL.
          isolate: false,
        },
      },
    ],
  },
});
