import { test as base, expect } from '@playwright/test';

/** STYLE.md: a console.error (or an uncaught page error) during a test fails it. */
/** playwright.config.ts: every wait stretched by E2E_TIME_FACTOR, where the machine is shared. */
const TIME_FACTOR = Math.max(1, Number(process.env.E2E_TIME_FACTOR ?? 1) || 1);

/**
 * A wait a test sets itself (`{ timeout: stretch(30_000) }`), stretched by the same factor: in a CI-like run at
 * load 20 a screen's report calls took over the a11y walk's unstretched 30 s. A passing wait still ends as soon as
 * its condition holds.
 */
export const stretch = (ms: number) => ms * TIME_FACTOR;

export const test = base.extend<{
  consoleErrors: string[];
  allowServerErrors: boolean;
  stretchedTimeouts: undefined;
}>({
  /** `test.setTimeout(ms)` in a test stretched by the same factor as the configured timeouts. */
  stretchedTimeouts: [
    // Playwright reads a fixture's dependencies from the first parameter's pattern: this one has none.
    // eslint-disable-next-line no-empty-pattern
    async ({}, use, testInfo) => {
      if (TIME_FACTOR > 1) {
        const set = testInfo.setTimeout.bind(testInfo);
        testInfo.setTimeout = (ms: number) => set(ms * TIME_FACTOR);
      }
      await use(undefined);
    },
    { auto: true },
  ],
  /** A test that provokes 5xx replies on purpose sets this, so the browser's own log of them is not an app error. */
  allowServerErrors: [false, { option: true }],
  consoleErrors: [
    async ({ page, allowServerErrors }, use) => {
      const resourceError = allowServerErrors
        ? /Failed to load resource: the server responded with a status of [45]\d\d/
        : /Failed to load resource: the server responded with a status of 4\d\d/;
      const errors: string[] = [];
      page.on('console', (msg) => {
        // The browser itself logs failed requests (a 404 page, a refused sign-in); those are not app errors.
        if (msg.type() === 'error' && !resourceError.test(msg.text())) {
          errors.push(msg.text());
        }
      });
      page.on('pageerror', (err) => errors.push(err.message));
      await use(errors);
      expect(errors, 'console errors during the test').toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };
