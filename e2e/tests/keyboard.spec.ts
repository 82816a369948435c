import type { Locator, Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { CLIENTS, DEMO, expectSignedIn } from './support.ts';

/**
 * Issue 21: flows done from the keyboard alone (Tab, Shift+Tab, Enter, Escape and typing), never the
 * mouse.
 */

/** Presses Tab until `target` has the focus (at most `max` times), as a keyboard user would. */
async function tabTo(page: Page, target: Locator, max = 40) {
  for (let i = 0; i < max; i++) {
    if (await target.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  await expect(target).toBeFocused();
}

test.describe('keyboard only (issue 21)', () => {
  test('sign in, skip to the content, search prospects, open one and close it with Escape', async ({
    page,
  }) => {
    test.setTimeout(90_000);
    await page.goto('/login');
    await tabTo(page, page.getByLabel('Email'));
    await page.keyboard.type(DEMO.email);
    await page.keyboard.press('Tab');
    await expect(page.getByLabel('Password', { exact: true })).toBeFocused();
    await page.keyboard.type(DEMO.password);
    await page.keyboard.press('Enter');
    await expectSignedIn(page, DEMO.name);

    // The first Tab stop of an app screen skips the header.
    await page.goto(`/prospects?client_id=${CLIENTS.agency}`);
    await expect(page.getByRole('heading', { name: 'Prospects', level: 1 })).toBeVisible();
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to content' });
    await expect(skip).toBeFocused();
    await expect(skip).toBeInViewport();
    await page.keyboard.press('Enter');
    await expect(page.locator('main')).toBeFocused();

    const search = page.getByPlaceholder('Search by name, company, e-mail or title');
    await tabTo(page, search);
    await page.keyboard.type('kendall');
    const kendall = page.getByRole('button', { name: 'Kendall Ellery' });
    await expect(kendall).toBeVisible();
    await tabTo(page, kendall);
    await page.keyboard.press('Enter');
    const drawer = page.getByRole('dialog', { name: 'Kendall Ellery' });
    await expect(drawer).toBeVisible();
    await expect(drawer).toContainText('Procurement Lead');
    await page.keyboard.press('Escape');
    await expect(drawer).toBeHidden();
    // Focus goes back where it was.
    await expect(kendall).toBeFocused();
  });
});
