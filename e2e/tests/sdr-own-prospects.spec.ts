import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { CLIENTS, SAM, api, signInTo } from './support.ts';
import { shot } from './shots.ts';

/**
 * Issue 42 item 9, clicked through as the demo SDR (Sam, a sales rep at Acme) at desktop and phone
 * width: "Mine" lists their own prospects and "Super" their superprospects, the filter stays in the
 * URL, they are in the rep list, and read-only screens say in one line why. Axe finds nothing.
 * Screenshots go to E2E_SHOTS_DIR when it is set.
 */
const axe = async (page: Page) =>
  (
    await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
  ).violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);

for (const [label, viewport] of [
  ['desktop', { width: 1280, height: 800 }],
  ['phone', { width: 390, height: 844 }],
] as const) {
  test.describe(`an SDR finds their own prospects, ${label} (issue 42 item 9)`, () => {
    test.use({ viewport });

    test('"Mine" and "Super" list the SDR\'s own prospects and superprospects; the URL keeps them', async ({
      page,
    }) => {
      await signInTo(page, `/prospects?client_id=${CLIENTS.acme}`, SAM);
      const table = page.getByRole('table', { name: 'Prospects' });
      await expect(table.getByRole('row').nth(1)).toBeVisible();
      // The SDR is one of the reps, marked as them.
      await page.getByRole('combobox', { name: 'Sales rep', exact: true }).click();
      await expect(page.getByRole('option', { name: 'Sam Okafor (you)' })).toBeVisible();
      await page.keyboard.press('Escape');

      await page.getByText('Mine', { exact: true }).click();
      await expect(page).toHaveURL(/mine=true/);
      // What the server lists as theirs, each prospect with an entry of Sam's.
      const theirs = (await (
        await api(page.request, 'GET', '/sc/prospects?mine=true&page_size=100', undefined, CLIENTS.acme)
      ).json()) as { items: { id: string; cadences: { assignee_name: string | null }[] }[] };
      expect(theirs.items.length).toBeGreaterThan(0);
      for (const p of theirs.items) expect(p.cadences.map((c) => c.assignee_name)).toContain('Sam Okafor');
      await expect(table.getByRole('row')).toHaveCount(Math.min(theirs.items.length, 50) + 1);
      await shot(page, `sdr-mine-${label}`);

      await page.getByText('Super', { exact: true }).click();
      await expect(page).toHaveURL(/super=true/);
      await page.reload();
      await expect(page.getByRole('radio', { name: 'Mine' })).toBeChecked();
      await expect(page.getByRole('radio', { name: 'Super', exact: true })).toBeChecked();
      const supers = (await (
        await api(
          page.request,
          'GET',
          '/sc/prospects?mine=true&super=true&page_size=100',
          undefined,
          CLIENTS.acme,
        )
      ).json()) as { items: unknown[] };
      expect(supers.items.length).toBeGreaterThan(0);
      await expect(table.getByRole('row')).toHaveCount(supers.items.length + 1);
      expect(await axe(page)).toEqual([]);
    });

    test('read-only screens say in one line why the SDR cannot change them', async ({ page }) => {
      await signInTo(page, `/client-settings/sales-reps?client_id=${CLIENTS.acme}`, SAM);
      await expect(page.getByRole('table', { name: 'Sales reps' })).toBeVisible();
      await expect(page.getByRole('note')).toHaveText(
        'Only owners and admins can change this: your role does not have permission to change the settings.',
      );
      await expect(page.getByRole('row', { name: /Sam Okafor/ })).toBeVisible();
      await shot(page, `sdr-sales-reps-${label}`);
      expect(await axe(page)).toEqual([]);

      await page.goto(`/cadence?client_id=${CLIENTS.acme}`);
      await page.getByRole('link', { name: 'Q3 Outbound - Operations Leaders' }).first().click();
      await expect(page.getByRole('note')).toContainText(
        'Only owners, admins and managers can change this: your role does not have permission to change cadences.',
      );
      await shot(page, `sdr-cadence-${label}`);
      expect(await axe(page)).toEqual([]);
    });
  });
}
