import { expect, test } from './fixtures.ts';
import { CLIENTS, DEMO, expectSignedIn, signInUI } from './support.ts';
import { shot } from './shots.ts';

test.describe('header on a narrow and a wide screen (SPEC.md §2 "Header and navigation", §9 layout width)', () => {
  test('at 375 px the navigation is behind a burger; the drawer navigates; switcher and account menu stay reachable', async ({
    page,
  }) => {
    await page.setViewportSize({ width: 375, height: 740 });
    await signInUI(page, DEMO.email, DEMO.password);
    await expectSignedIn(page, DEMO.name);
    const header = page.locator('header');
    // The inline links are hidden; the burger replaces them.
    await expect(header.getByRole('link', { name: 'Feed' })).toBeHidden();
    const burger = header.getByRole('button', { name: 'Open navigation' });
    await expect(burger).toBeVisible();
    // Nothing in the header overflows the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await shot(page, 'header-375', { animations: 'disabled' });

    await burger.click();
    const drawer = page.getByRole('dialog');
    await expect(drawer.getByRole('link', { name: 'Cadences' })).toHaveAttribute(
      'href',
      `/cadence?client_id=${CLIENTS.agency}`,
    );
    await shot(page, 'drawer-375', { animations: 'disabled' });
    await drawer.getByRole('link', { name: 'Clients' }).click();
    await expect(page).toHaveURL(new RegExp(`/clients\\?client_id=${CLIENTS.agency}$`));
    await expect(page.getByRole('heading', { level: 1, name: 'Clients' })).toBeVisible();
    await expect(drawer).toBeHidden();

    await header.getByRole('button', { name: 'Switch client' }).click();
    await page.getByRole('menuitem', { name: 'Acme Robotics' }).click();
    await expect(page).toHaveURL(new RegExp(`client_id=${CLIENTS.acme}`));

    await header.getByRole('button', { name: 'Account menu' }).click();
    await expect(page.getByRole('menuitem', { name: 'Log out' })).toBeVisible();
    await shot(page, 'account-375', { animations: 'disabled' });
    await page.getByRole('menuitem', { name: 'Log out' }).click();
    await expect(page).toHaveURL(/\/login$/);
    await shot(page, 'login-375', { animations: 'disabled' });
  });

  test('at 1280 px the links are inline, no burger, and the content column is 980 to 1200 px wide', async ({
    page,
  }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await signInUI(page, DEMO.email, DEMO.password);
    await expectSignedIn(page, DEMO.name);
    const header = page.locator('header');
    for (const name of ['Feed', 'Cadences', 'Prospects', 'Revenue', 'Clients'])
      await expect(header.getByRole('link', { name })).toBeVisible();
    await expect(header.getByRole('button', { name: 'Open navigation' })).toBeHidden();
    const main = await page.locator('main > div').first().boundingBox();
    expect(main!.width).toBeGreaterThanOrEqual(980);
    expect(main!.width).toBeLessThanOrEqual(1200);
    await shot(page, 'header-1280', { animations: 'disabled' });
  });
});
