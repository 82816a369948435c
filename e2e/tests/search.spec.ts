import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, test, stretch } from './fixtures.ts';
import { CLIENTS, SAM, signInTo } from './support.ts';
import { shot } from './shots.ts';

/**
 * Issue 17: global search in the header, and /reports read-only for an SDR. Northwind's prospects come
 * from the demo CSV ("Kendall Ellery, Procurement Lead, Brightline Freight").
 */
const NORTHWIND = CLIENTS.agency;
const axe = async (page: Page) =>
  (
    await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
  ).violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join('; ')}`);

test.describe('global search (issue 17)', () => {
  test('the owner types a prospect name in the header search and opens the prospect', async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await signInTo(page, `/feed?client_id=${NORTHWIND}`);
    const header = page.locator('header');
    await header.getByRole('button', { name: 'Search' }).click();
    const dialog = page.getByRole('dialog', { name: 'Search' });
    const box = dialog.getByRole('combobox', { name: /Search prospects/ });
    await expect(box).toBeFocused();
    await box.fill('kendall');
    const option = dialog.getByRole('option', { name: /Kendall Ellery/ });
    await expect(option).toBeVisible();
    await expect(option).toHaveAttribute('aria-selected', 'true');
    await expect(dialog.getByRole('group', { name: 'Prospects' })).toBeVisible();
    await shot(page, 'search-1280', { animations: 'disabled' });
    expect(await axe(page)).toEqual([]);
    await box.press('Enter');
    await expect(page).toHaveURL(/\/prospects\?client_id=[^&]+&prospect=[0-9a-f-]{36}$/);
    const drawer = page.getByRole('dialog', { name: 'Kendall Ellery' });
    await expect(drawer.getByRole('table', { name: 'Cadence entries' })).toBeVisible();
    await shot(page, 'search-opened-prospect', { animations: 'disabled' });

    // Ctrl+K from anywhere; a company opens its buying group; nothing found says so.
    await page.keyboard.press('Escape');
    await expect(drawer).toBeHidden();
    await page.keyboard.press('Control+k');
    await dialog.getByRole('combobox').fill('brightline');
    const company = dialog.getByRole('group', { name: 'Companies' }).getByRole('option').first();
    await expect(company).toContainText('Brightline Freight');
    await company.click();
    await expect(page).toHaveURL(/\/reports\?client_id=[^&]+&tab=engagement&account=/);
    await expect(page.getByRole('dialog', { name: 'Brightline Freight' })).toBeVisible();
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+k');
    await dialog.getByRole('combobox').fill('no such thing anywhere');
    await expect(dialog.getByText('No results for “no such thing anywhere”')).toBeVisible();
    await shot(page, 'search-empty', { animations: 'disabled' });
    await page.keyboard.press('Escape');

    // Nothing in the header overflows at 1280 px, for an agency owner with every link and the switcher.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
    await shot(page, 'header-1280', { animations: 'disabled' });
  });

  test('at 375 px the search is an icon beside the burger and opens full screen', async ({ page }) => {
    await page.setViewportSize({ width: 375, height: 740 });
    await signInTo(page, `/feed?client_id=${NORTHWIND}`);
    const header = page.locator('header');
    await expect(header.getByRole('button', { name: 'Open navigation' })).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await shot(page, 'header-search-375', { animations: 'disabled' });
    await header.getByRole('button', { name: 'Search' }).click();
    const dialog = page.getByRole('dialog', { name: 'Search' });
    await dialog.getByRole('combobox').fill('ellery');
    await expect(dialog.getByRole('option', { name: /Kendall Ellery/ })).toBeVisible();
    const box = await dialog.boundingBox();
    expect(box?.width).toBeLessThanOrEqual(375);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await shot(page, 'search-375', { animations: 'disabled' });
    await dialog.getByRole('option', { name: /Kendall Ellery/ }).click();
    await expect(page.getByRole('dialog', { name: 'Kendall Ellery' })).toBeVisible();
  });
});

test('an SDR sees the reports read-only: the four tabs, no priority marks, no switch for the revenue report', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  await signInTo(page, `/reports?client_id=${CLIENTS.acme}`, SAM);
  const tabs = page.getByRole('tablist', { name: 'Reports', exact: true }).getByRole('tab');
  await expect(tabs).toHaveText(['Engagement', 'Pipeline', 'Revenue', 'Opportunities', 'Shared links']);
  await expect(
    page.getByRole('table', { name: 'Accounts by alignment' }).getByRole('row').nth(1),
  ).toBeVisible();
  await shot(page, 'reports-sdr-engagement', { fullPage: true });

  await page.getByRole('tab', { name: 'Pipeline' }).click();
  await page.getByRole('tab', { name: 'Priority' }).click();
  await expect(page).toHaveURL(/tab=pipeline&view=priority/);
  const priority = page.getByRole('table', { name: 'Open opportunities by engagement' });
  await expect(priority.getByRole('row').nth(1)).toBeVisible({ timeout: stretch(30_000) });
  await expect(priority.getByRole('button', { name: /as a sales priority$/ })).toHaveCount(0);
  expect(await axe(page)).toEqual([]);

  await page.getByRole('tab', { name: 'Opportunities' }).click();
  await expect(
    page
      .getByRole('table', { name: 'Opportunities' })
      .or(page.getByText('Ask an owner or admin of this client to turn it on.')),
  ).toBeVisible();
  await expect(page.getByRole('button', { name: 'Turn on the revenue report' })).toHaveCount(0);
  await shot(page, 'reports-sdr-opportunities', { fullPage: true });
  expect(await axe(page)).toEqual([]);
  await page.getByRole('tab', { name: 'Revenue' }).click();
  await expect(
    page
      .getByText(/of \d+ new opportunities/)
      .or(page.getByText('Ask an owner or admin of this client to turn it on.')),
  ).toBeVisible();
  expect(await axe(page)).toEqual([]);
  // The SDR may read reports, so the header search is there for them too.
  await expect(page.locator('header').getByRole('button', { name: 'Search' })).toBeVisible();
});
