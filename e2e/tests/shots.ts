import path from 'node:path';
import { test } from '@playwright/test';
import type { Locator, Page } from '@playwright/test';

type Options = { fullPage?: boolean; animations?: 'disabled' | 'allow' };

/**
 * A screenshot for a person to look at, never asserted on: written to
 * `$E2E_SHOTS_DIR/<spec>/<name>.png` when E2E_SHOTS_DIR is set
 * (`E2E_SHOTS_DIR=.tmp/shots npx playwright test --config e2e/playwright.config.ts settings`), and
 * skipped otherwise. `npm test` sets none: its e2e lane is CI's longest and bound by Chromium's CPU,
 * and 140 PNGs that nobody opens there cost it (bench/README.md "CI time").
 */
export async function shot(target: Page | Locator, name: string, options: Options = {}): Promise<void> {
  const dir = process.env.E2E_SHOTS_DIR;
  if (!dir) return;
  const spec = path.basename(test.info().file).replace(/\.spec\.ts$/, '');
  await target.screenshot({ ...options, path: path.resolve(dir, spec, `${name}.png`) });
}
