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
        },
      },
    ],
  },
});
