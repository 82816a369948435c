import { test as base, expect } from '@playwright/test';

/** STYLE.md: a console.error (or an uncaught page error) during a test fails it. */
export const test = base.extend<{ consoleErrors: string[]; allowServerErrors: boolean }>({
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
