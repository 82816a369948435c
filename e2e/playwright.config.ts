import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// scripts/test.ts picks a free port; these defaults serve a direct `npx playwright test`.
const port = Number(process.env.E2E_PORT ?? 4317);
const baseURL = `http://localhost:${port}`;
const TIME_FACTOR = Math.max(1, Number(process.env.E2E_TIME_FACTOR ?? 1) || 1);

/**
 * End-to-end tests drive Debian's Chromium (never a downloaded browser) against the real server,
 * built web app and a fresh database: PostgreSQL where npm test has one (docs/decisions/0043), else
 * the embedded one.
 */
export default defineConfig({
  testDir: './tests',
  outputDir: path.join(root, '.tmp/e2e-results'),
  fullyParallel: true,
  workers: 2,
  // `npm test` (CI) retries a failed test twice; a pass on a retry is reported as flaky in its summary.
  // Twice, not once: the embedded database serves one statement at a time, so a screen whose reports
  // ran out of time under load can still be computing them when the first retry starts (a CI-like run
  // of 2026-12-07 on a machine twice as slow: the Revenue test's retry could not even sign in within
  // 90 s; alone the test passes in 17-24 s). A test that fails three times is red.
  retries: process.env.CI || process.env.E2E_RETRIES ? 2 : 0,
  // One embedded database serves the whole suite on a 2-core machine that other work may share: a
  // screen can take several seconds there, so waits are longer than Playwright's 5 s and 30 s.
  // CI's machine of 2026-12-05 ran every suite about three times slower than the month before
  // (the same commits): 90 s and 20 s leave room for that without hiding a screen that never loads.
  // E2E_TIME_FACTOR (npm test: 2) stretches every wait, the ones tests set themselves included
  // (fixtures.ts): there the suite runs beside four other lanes on two cores, where a screen that
  // takes 20 s alone took 90–120 s (2026-12-06: two tests out of time, both passing alone in 20 s).
  timeout: 90_000 * TIME_FACTOR,
  expect: { timeout: 20_000 * TIME_FACTOR },
  reporter: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ? [['list'], ['json']] : [['list']],
  use: {
    baseURL,
    // Recording a trace of every test (to keep the failing ones) cost the suite about a fifth of its
    // time on two cores (the screencast); a failure keeps its screenshot, a retried one its trace.
    trace: 'on-first-retry',
    screenshot: 'only-on-failure',
    launchOptions: {
      // Debian's headless shell where it is installed (scripts/test-lib.ts CHROMIUM, docs/decisions/0041);
      // CHROMIUM_PATH=/usr/bin/chromium to run a test headed.
      executablePath:
        process.env.CHROMIUM_PATH ??
        (existsSync('/usr/bin/chromium-headless-shell')
          ? '/usr/bin/chromium-headless-shell'
          : '/usr/bin/chromium'),
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  // The server and the outside services it talks to are started by global-setup.ts.
  globalSetup: './global-setup.ts',
});
