import { expect, test } from './fixtures.ts';

test.describe('app shell (SPEC.md §2, §8)', () => {
  test('"/" while logged out ends on /login in the auth layout', async ({ page }) => {
    await page.goto('/');
    await expect(page).toHaveURL(/\/login$/);
    await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
    // Auth layout: the sign-in card, no app navigation.
    await expect(page.getByLabel('Email')).toBeVisible();
    await expect(page.getByRole('link', { name: 'Feed' })).toHaveCount(0);
    await expect(page).toHaveTitle('Rally - Sign In');
  });

  test('an app route while logged out sends the user to /login', async ({ page }) => {
    await page.goto('/cadence/7?client_id=abc');
    await expect(page).toHaveURL(/\/login$/);
  });

  test('"The login page footer says \'New to the product?\' with a Sign Up link to /register"', async ({
    page,
  }) => {
    await page.goto('/login');
    await expect(page.getByText('New to the product?')).toBeVisible();
    await page.getByRole('link', { name: 'Sign Up' }).click();
    await expect(page).toHaveURL(/\/register$/);
  });

  test('"Route not found | Page \'Page not found\', status 404"', async ({ page }) => {
    const response = await page.goto('/no-such-page');
    expect(response?.status()).toBe(404);
    await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
    await expect(page.locator('main')).toContainText(
      'We are sorry, the page you requested could not be found. Please go back to the homepage',
    );
    await expect(page).toHaveTitle('Rally - Page not found');
    await page.getByRole('link', { name: 'homepage' }).click();
    await expect(page).toHaveURL(/\/login$/);
  });

  test('"The page footer shows the current year, a copyright line and links to cookies, privacy and terms of use"', async ({
    page,
  }) => {
    await page.goto('/legal/terms');
    const footer = page.locator('footer');
    await expect(footer).toContainText(
      `© ${new Date().getFullYear()} Rally Technologies, Inc. All rights reserved.`,
    );
    for (const [name, heading, path] of [
      ['Cookies', 'Cookies', '/legal/cookies'],
      ['Privacy', 'Privacy', '/legal/privacy'],
      ['Terms of use', 'Terms of use', '/legal/terms'],
    ] as const) {
      await footer.getByRole('link', { name }).click();
      await expect(page).toHaveURL(new RegExp(`${path}$`));
      await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
      await expect(page).toHaveTitle(`Rally - ${heading}`);
    }
  });

  test('"When logged out the header shows Sign Up (/register) and Sign In (/login)"', async ({ page }) => {
    await page.goto('/legal/privacy');
    const header = page.locator('header');
    await expect(header.getByRole('link', { name: 'Sign Up' })).toHaveAttribute('href', '/register');
    await header.getByRole('link', { name: 'Sign In' }).click();
    await expect(page).toHaveURL(/\/login$/);
  });

  test('the server serves hashed assets with a long cache and the latest-build file uncached', async ({
    page,
    request,
  }) => {
    await page.goto('/login');
    const script = await page.locator('script[type="module"]').first().getAttribute('src');
    expect(script).toMatch(/^\/assets\/index-[\w-]+\.js$/);
    const asset = await request.get(script!);
    expect(asset.headers()['cache-control']).toBe('public, max-age=31536000, immutable');
    const build = await request.get('/latest-build');
    expect(build.status()).toBe(200);
    expect(build.headers()['cache-control']).toBe('no-cache');
    expect((await build.text()).trim()).not.toBe('');
  });
});
