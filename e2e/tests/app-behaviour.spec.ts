import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from './fixtures.ts';
import { CLIENTS, DEMO, api, expectSignedIn, signInUI } from './support.ts';

const LATEST_BUILD = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../apps/web/dist/latest-build',
);

test.describe('app behaviour (SPEC.md §4, §7, §8)', () => {
  test('"Every response\'s X-Xsrf-Token header replaces the stored token and is broadcast to other tabs"', async ({
    context,
  }) => {
    const tabA = await context.newPage();
    const tabB = await context.newPage();
    await tabB.goto('/legal/terms');
    await tabB.evaluate(() => {
      const w = window as unknown as { received: string[] };
      w.received = [];
      new BroadcastChannel('csrf').onmessage = (e: MessageEvent) => w.received.push(e.data);
    });
    let lastToken = '';
    tabA.on('response', (r) => {
      const t = r.headers()['x-xsrf-token'];
      if (t && r.url().includes('/v1/')) lastToken = t;
    });
    await signInUI(tabA, DEMO.email, DEMO.password);
    await expectSignedIn(tabA, DEMO.name);
    await expect
      .poll(() => tabB.evaluate(() => (window as unknown as { received: string[] }).received.at(-1)))
      .toBe(lastToken);
  });

  test('a 401 in the middle of a session shows "Not Authenticated" and logs out', async ({ page }) => {
    await signInUI(page, DEMO.email, DEMO.password);
    await expectSignedIn(page, DEMO.name);
    // A screen that makes no calls of its own while idle (the feed listens live), so the user's next
    // action is what meets the 401.
    await page.goto('/settings/profile');
    await expect(page.getByRole('heading', { name: 'Profile', level: 1 })).toBeVisible();
    // The session ends behind the app's back (signed out elsewhere, or expired).
    expect((await api(page.request, 'POST', '/v1/api/logout')).status()).toBe(204);
    await page.getByRole('button', { name: 'Switch client' }).click();
    await page.getByRole('menuitem', { name: 'Globex Logistics' }).click();
    await expect(page.getByText('Sorry, you have to be logged in to access this!')).toBeVisible();
    await expect(page.getByText('Not Authenticated')).toBeVisible();
    await expect(page).toHaveURL(/\/login$/);
  });

  test('a user with two clients switches between them through client_id', async ({ page }) => {
    await signInUI(page, DEMO.email, DEMO.password);
    await expectSignedIn(page, DEMO.name);
    await page.getByRole('button', { name: 'Switch client' }).click();
    await page.getByRole('menuitem', { name: 'Acme Robotics' }).click();
    await expect(page).toHaveURL(new RegExp(`client_id=${CLIENTS.acme}`));
    await expect(page.getByRole('button', { name: 'Switch client' })).toContainText('Acme Robotics');
    // The navigation links carry the current client.
    await expect(page.getByRole('link', { name: 'Cadences' })).toHaveAttribute(
      'href',
      `/cadence?client_id=${CLIENTS.acme}`,
    );
    // A link to another client of the user switches to it.
    await page.goto(`/onboarding?client_id=${CLIENTS.globex}`);
    await expect(page.getByRole('button', { name: 'Switch client' })).toContainText('Globex Logistics');
    // On a fresh load a client the user is not in falls back to the default membership (SPEC.md §4 order).
    await page.goto('/onboarding?client_id=00000000-0000-4000-8000-000000000000');
    await expect(page).toHaveURL(new RegExp(`client_id=${CLIENTS.agency}`));
  });

  test('"A new deployment is detected by polling a latest-build file; on a change the app reloads on the next navigation"', async ({
    page,
  }) => {
    const original = readFileSync(LATEST_BUILD, 'utf8');
    try {
      await page.goto('/legal/privacy');
      await expect(page.getByRole('heading', { level: 1, name: 'Privacy' })).toBeVisible();
      await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
      // Navigating without a new build keeps the page (no full load).
      await page.locator('footer').getByRole('link', { name: 'Cookies' }).click();
      await expect(page.getByRole('heading', { level: 1, name: 'Cookies' })).toBeVisible();
      expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);

      writeFileSync(LATEST_BUILD, `${original.trim()}-next\n`);
      // The app checks when the tab becomes visible (and every minute).
      await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
      await page.waitForTimeout(500);
      await page.locator('footer').getByRole('link', { name: 'Terms of use' }).click();
      await expect(page.getByRole('heading', { level: 1, name: 'Terms of use' })).toBeVisible();
      await expect
        .poll(() => page.evaluate(() => (window as unknown as { marker?: number }).marker))
        .toBeUndefined();
    } finally {
      writeFileSync(LATEST_BUILD, original);
    }
  });
});
