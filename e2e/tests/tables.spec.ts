import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { uuidToBase58 } from '@rally/shared';
import { expect, test } from './fixtures.ts';
import { CLIENTS, signInTo } from './support.ts';
import { shot } from './shots.ts';

/**
 * Issue 42 items 11 and 14, clicking as a person would at desktop and phone width: the shared table
 * (prospects, opportunities, a cohort's members) sorts, picks rows, chooses columns, saves a view
 * and exports what is shown; on a phone the key columns are what shows. The landing page editor
 * warns when "Book a meeting" has no calendar to open; the public page opens with a heading.
 * Screenshots go to E2E_SHOTS_DIR when it is set.
 */
const axe = async (page: Page) =>
  (
    await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
  ).violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
/** Northwind's seeded landing page (apps/server/src/modules/content/demo.ts), with no calendar link. */
const DEMO_PAGE_ID = '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c100101';

for (const [label, viewport] of [
  ['desktop', { width: 1280, height: 800 }],
  ['phone', { width: 390, height: 844 }],
] as const) {
  test.describe(`tables and landing pages, ${label} (issue 42 items 11, 14)`, () => {
    test.use({ viewport });

    test('prospects: sort, pick, choose columns, save a view, export what is shown', async ({ page }) => {
      test.setTimeout(120_000);
      await signInTo(page, `/prospects?client_id=${CLIENTS.acme}`);
      const table = page.getByRole('table', { name: 'Prospects' });
      await expect(table.getByRole('row').nth(1)).toBeVisible();
      const heads = table.getByRole('columnheader');
      if (label === 'phone') await expect(heads).toHaveText(['', 'Name', 'Super date']);
      else await expect(heads).toHaveCount(8);

      await page.getByRole('button', { name: 'Sort by name' }).click();
      await expect(page).toHaveURL(/order=desc/);
      await expect(table.getByRole('columnheader', { name: /Sort by name/ })).toHaveAttribute(
        'aria-sort',
        'descending',
      );

      await page.getByRole('button', { name: 'Columns' }).click();
      await page.getByRole('checkbox', { name: 'Company' }).click();
      await page.keyboard.press('Escape');
      await expect(table.getByRole('columnheader', { name: 'Company' })).toHaveCount(
        label === 'phone' ? 1 : 0,
      );
      await page.reload();
      await expect(table.getByRole('row').nth(1)).toBeVisible();
      await expect(table.getByRole('columnheader', { name: 'Company' })).toHaveCount(
        label === 'phone' ? 1 : 0,
      );

      await page.getByRole('button', { name: 'Views' }).click();
      await page.getByLabel('Save what is shown as').fill('Z to A');
      await page.getByRole('button', { name: 'Save view' }).click();
      await page.keyboard.press('Escape');
      await expect(page.getByRole('button', { name: 'View: Z to A' })).toBeVisible();
      await page.goto(`/prospects?client_id=${CLIENTS.acme}`);
      await page.getByRole('button', { name: 'Views' }).click();
      await page.getByRole('button', { name: 'Z to A', exact: true }).click();
      await expect(page).toHaveURL(/order=desc/);
      // The view's rows have arrived (the last page stays on screen while they load).
      await expect(table.getByRole('columnheader', { name: /Sort by name/ })).toHaveAttribute(
        'aria-sort',
        'descending',
      );
      await page.waitForLoadState('networkidle');
      await expect(page.getByLabel('Updating')).toHaveCount(0);

      const boxes = table.getByRole('checkbox', { name: /^Select (?!every)/ });
      await boxes.nth(0).check();
      await boxes.nth(1).check();
      await expect(page.getByRole('group', { name: 'Selected rows' })).toContainText('2 selected');
      await shot(page, `tables-prospects-${label}`);
      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Export 2 selected' }).click();
      const file = await download;
      expect(file.suggestedFilename()).toBe('prospects.csv');
      expect(await axe(page)).toEqual([]);
    });

    test('opportunities sort by amount on the server; a cohort’s members by name', async ({ page }) => {
      test.setTimeout(120_000);
      await signInTo(page, `/revenue?client_id=${CLIENTS.agency}`);
      await page.getByRole('tab', { name: 'All opportunities' }).click();
      const table = page.getByRole('table', { name: 'Opportunities' });
      await expect(table.getByRole('row').nth(1)).toBeVisible();
      if (label === 'phone')
        await expect(table.getByRole('columnheader')).toHaveText(['', 'Opportunity', 'Stage', 'Amount']);
      const asked = page.waitForRequest(
        (r) => r.url().includes('/opportunity?') && r.url().includes('sort=amount'),
      );
      await table.getByRole('button', { name: 'Sort by amount' }).click();
      await asked;
      await expect(table.getByRole('columnheader', { name: /Sort by amount/ })).toHaveAttribute(
        'aria-sort',
        'descending',
      );
      await shot(page, `tables-opportunities-${label}`);

      await page.goto(`/cohorts?client_id=${CLIENTS.acme}`);
      await page
        .getByRole('table', { name: 'Cohorts' })
        .getByRole('link', { name: 'Engaged prospects' })
        .click();
      const members = page.getByRole('table', { name: 'Members' });
      await expect(members.getByRole('row').nth(1)).toBeVisible();
      const sorted = page.waitForRequest(
        (r) => r.url().includes('/segment?') && r.url().includes('sort=name'),
      );
      await members.getByRole('button', { name: 'Sort by name' }).click();
      await sorted;
      await expect(members.getByRole('columnheader', { name: /Sort by name/ })).toHaveAttribute(
        'aria-sort',
        'ascending',
      );
      await shot(page, `tables-members-${label}`);
    });

    test('the page editor warns of a button with no calendar; the public page has its heading', async ({
      page,
    }) => {
      test.setTimeout(90_000);
      await signInTo(page, `/landing-pages/${DEMO_PAGE_ID}?client_id=${CLIENTS.agency}`);
      const warning = page.getByRole('status').filter({ hasText: 'has no calendar to open' });
      await expect(warning).toBeVisible();
      await warning.scrollIntoViewIfNeeded();
      await shot(page, `tables-page-editor-${label}`);
      await page.goto(`/lp/${uuidToBase58(DEMO_PAGE_ID)}`);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      await shot(page, `tables-public-page-${label}`);
    });
  });
}
