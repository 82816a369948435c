import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { DEMO, expectSignedIn, signInUI } from './support.ts';

/** Same-origin request paths the tab makes from now on. */
function recordRequests(page: Page): string[] {
  const paths: string[] = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.origin === new URL(page.url()).origin) paths.push(u.pathname);
  });
  return paths;
}

const CLIENTS_CHUNK = /^\/assets\/clients-[\w-]+\.js$/;
const PROFILE_CHUNK = /^\/assets\/settings-profile-[\w-]+\.js$/;
const CLIENT_LIST = '/v1/rest/client';

type WithConnection = Navigator & { connection: { saveData: boolean; effectiveType: string } };

async function signedIn(page: Page) {
  await signInUI(page, DEMO.email, DEMO.password);
  await expectSignedIn(page, DEMO.name);
  // The pointer rests on the page body, away from any link.
  await page.mouse.move(5, 300);
  await page.waitForLoadState('networkidle');
}

test.describe('SPEC.md §2 "Page-payload prefetch happens on link hover (not on a very slow connection)"', () => {
  test("hovering a link fetches its screen's code and data before the click; the screen then uses them", async ({
    page,
  }) => {
    const requests = recordRequests(page);
    await signedIn(page);
    // §9 "Payload prefetch scheduled 1000 ms after mount": the header links' code came without a hover.
    await expect.poll(() => requests.some((p) => CLIENTS_CHUNK.test(p))).toBe(true);
    expect(requests.some((p) => PROFILE_CHUNK.test(p))).toBe(false);

    // Code: the Profile item of the account menu is not in the header schedule.
    await page.getByRole('button', { name: 'Account menu' }).click();
    await page.getByRole('menuitem', { name: 'Profile' }).hover();
    await expect.poll(() => requests.some((p) => PROFILE_CHUNK.test(p))).toBe(true);
    await page.keyboard.press('Escape');

    // Data: the clients list, fetched on hover (the sign-in's own call came before `from`).
    const from = requests.length;
    const clientCalls = () => requests.slice(from).filter((p) => p === CLIENT_LIST).length;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).hover();
    await expect.poll(clientCalls).toBe(1);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Clients' })).toBeVisible();
    await expect(page.getByText('Acme Robotics').first()).toBeVisible();
    // The screen showed the prefetched list without asking again.
    expect(clientCalls()).toBe(1);
  });

  test('with Save-Data on, neither the scheduled nor the hover prefetch happens', async ({ page }) => {
    // Chromium has no switch for the user's Save-Data setting; the init script reports it as on.
    await page.addInitScript(() => {
      const info = (navigator as Navigator & { connection: object }).connection;
      Object.defineProperty(Object.getPrototypeOf(info), 'saveData', { get: () => true });
    });
    const requests = recordRequests(page);
    await signedIn(page);
    expect(await page.evaluate(() => (navigator as WithConnection).connection.saveData)).toBe(true);
    await page.waitForTimeout(1500);
    expect(requests.filter((p) => CLIENTS_CHUNK.test(p))).toEqual([]);

    const from = requests.length;
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Clients' }).hover();
    await page.getByRole('button', { name: 'Account menu' }).click();
    await page.getByRole('menuitem', { name: 'Profile' }).hover();
    await page.waitForTimeout(500);
    expect(
      requests.slice(from).filter((p) => p === CLIENT_LIST || CLIENTS_CHUNK.test(p) || PROFILE_CHUNK.test(p)),
    ).toEqual([]);
    await page.keyboard.press('Escape');

    // The click still works: code and data come on demand.
    await nav.getByRole('link', { name: 'Clients' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Clients' })).toBeVisible();
    expect(requests.some((p) => CLIENTS_CHUNK.test(p))).toBe(true);
  });

  test('on an emulated 2g connection a hover fetches nothing', async ({ page }) => {
    const requests = recordRequests(page);
    await signedIn(page);
    // DevTools network emulation: Chromium then reports effectiveType '2g' (and slows requests).
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 1500,
      downloadThroughput: 6_000,
      uploadThroughput: 6_000,
    });
    expect(await page.evaluate(() => (navigator as WithConnection).connection.effectiveType)).toMatch(/2g$/);
    const from = requests.length;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).hover();
    await page.waitForTimeout(500);
    expect(requests.slice(from).filter((p) => p === CLIENT_LIST)).toEqual([]);
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
  });
});
