import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Four projects: shared helpers (unit), the web app (unit, jsdom), the server (API) and the server's
 * multi-process suite (real server processes, several instances on one database, a Redis stopped
 * and started again: apps/server/test/multi, a lane of its own in scripts/test.ts).
 */
export default defineConfig({
  test: {
    // Vitest's default in a run is one worker fewer than the cores: on CI's two cores, one worker,
    // which leaves a core idle while a file waits on PostgreSQL, a timer or a socket. Two workers
    // here: unit 94 → 60 s, API on PGlite 249 → 177 s, on PostgreSQL 217 → 113 s. Each API file has
    // a database of its own (docs/decisions/0003-test-databases.md), so files can run side by side.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        test: {
          name: 'shared',
          include: ['packages/shared/src/**/*.test.ts'],
          environment: 'node',
          // Property tests (fast-check, 100 cases each) take well under a second alone; beside the other
          // lanes at load 16-20 one took past Vitest's 5 s default (a CI-like run of 2026-12-07). Slow is
          // not broken.
          testTimeout: 30_000,
        },
      },
      './apps/web/vite.config.ts',
      {
        test: {
          name: 'server',
          globalSetup: ['apps/server/test/global-setup.ts'],
          // Closes what a file made outside its tests (apps, databases) when the file ends.
          setupFiles: ['apps/server/test/setup-file.ts'],
          include: ['apps/server/src/**/*.test.ts', 'apps/server/test/**/*.test.ts'],
          // RALLY_TEST_EXCLUDE (comma-separated paths): files npm test runs on one database only
          // (scripts/test.ts ONCE_ON_POSTGRES). Vitest's --exclude flag does not reach a project's
          // own list: with it the PGlite run still ran all four (about 600 s of a CI-like run).
          exclude: [
            'apps/server/test/multi/**',
            ...(process.env.RALLY_TEST_EXCLUDE?.split(',').filter(Boolean) ?? []),
          ],
          environment: 'node',
          // CI's machine ran every suite about three times slower on 2026-12-05 than the month before.
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // The files of a worker share one module graph: the app's imports load once per worker,
          // not once per file (on this machine the PGlite run went 416 → 315 s, PostgreSQL 328 →
          // 229 s). It relies on every test app and database being closed (test/helpers.ts
          // cleanUp); a leak shows as "too many clients" on PostgreSQL.
          isolate: false,
        },
      },
      {
        test: {
          name: 'multiprocess',
          globalSetup: ['apps/server/test/global-setup.ts'],
          setupFiles: ['apps/server/test/setup-file.ts'],
          include: ['apps/server/test/multi/**/*.test.ts'],
          environment: 'node',
          // Each file starts server processes of its own (each loads the app, migrates, listens).
          testTimeout: 120_000,
          hookTimeout: 120_000,
          isolate: false,
        },
      },
    ],
  },
});
