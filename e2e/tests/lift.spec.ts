import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { CLIENTS, SAM, signInTo } from './support.ts';
import { shot } from './shots.ts';

/**
 * Issue 45: the lift report on Revenue, as an owner and as an SDR would meet it. The suite's server
 * starts new cadences with no holdout (HOLDOUT_DEFAULT_PERCENT=0, e2e/global-setup.ts), so the demo
 * has none yet: the panel says so, an owner turns one on in its settings (and back off, so the
 * other walks' new targets are not held out), and an SDR reads why they cannot.
 */
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
async function expectNoAxeViolations(page: Page) {
  const result = await new AxeBuilder({ page })
    .include('section[aria-labelledby="lift-title"]')
    .withTags(TAGS)
    .analyze();
  expect(
    result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
  ).toEqual([]);
}

for (const [label, viewport] of [
  ['desktop', { width: 1280, height: 800 }],
  ['phone', { width: 390, height: 844 }],
] as const) {
  test.describe(`the lift report, ${label} (issue 45)`, () => {
    test.use({ viewport });
    test.slow();

    test('an owner sees what is not yet measurable, and turns a holdout on and off', async ({ page }) => {
      await signInTo(page, `/revenue?client_id=${CLIENTS.acme}`);
      const panel = page.getByRole('region', { name: 'Incremental: what the ads caused' });
      await expect(panel).toBeVisible();
      await expect(panel.getByText('No holdout yet')).toBeVisible();
      await expect(
        page.getByText(
          'Incremental: what the ads caused is not yet measurable. No prospects have been held out yet.',
        ),
      ).toBeVisible();
      await expect(page.getByText(/^Attributed:/)).toBeVisible();

      await panel.getByText('Holdout settings').click();
      const settings = panel.getByRole('table', { name: 'Holdout share per cadence and cohort' });
      await expect(settings.getByRole('row')).not.toHaveCount(1);
      const input = settings.getByLabel(/^Holdout share for /).first();
      const name = (await input.getAttribute('aria-label')) ?? '';
      const row = settings.getByRole('row').filter({ has: page.getByLabel(name, { exact: true }) });
      const choose = (share: string) => input.selectOption({ label: share });
      // A retry after a failure half-way finds the share it left: start from none.
      if ((await input.inputValue()) !== '0') {
        await choose('0 %');
        await row.getByRole('button', { name: 'Save' }).click();
        await expect(row.getByRole('button', { name: 'Save' })).toBeDisabled();
      }
      await choose('20 %');
      await row.getByRole('button', { name: 'Save' }).click();
      await expect(
        page.getByText(/: 20 % of the prospects entering from now on are held out\./),
      ).toBeVisible();
      await expect(input).toHaveValue('20');
      await shot(page, `lift-${label}`, { fullPage: true });
      await expectNoAxeViolations(page);

      // The compare list offers the cadence now that it has a share.
      await panel.getByLabel('Compare', { exact: true }).click();
      await expect(
        page
          .getByRole('option')
          .filter({ hasText: /^Cadence: |^Cohort: / })
          .first(),
      ).toBeVisible();
      await page.keyboard.press('Escape');

      await choose('0 %');
      await row.getByRole('button', { name: 'Save' }).click();
      await expect(
        page.getByText(/: 0 % of the prospects entering from now on are held out\./),
      ).toBeVisible();
    });

    test('an SDR reads the report and why they cannot change a holdout', async ({ page }) => {
      await signInTo(page, `/revenue?client_id=${CLIENTS.acme}`, SAM);
      const panel = page.getByRole('region', { name: 'Incremental: what the ads caused' });
      await expect(panel.getByText('No holdout yet')).toBeVisible();
      await panel.getByText('Holdout settings').click();
      await expect(
        panel.getByText('Only owners can change a holdout, because held-out prospects are shown no ads.'),
      ).toBeVisible();
      await expect(panel.getByRole('button', { name: 'Save' })).toHaveCount(0);
    });
  });
}
