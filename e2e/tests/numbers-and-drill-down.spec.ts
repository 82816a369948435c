import { createHash } from 'node:crypto';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, test, stretch } from './fixtures.ts';
import { CLIENTS, api, signInTo } from './support.ts';
import { shot } from './shots.ts';

/**
 * Issue 42 items 6, 7 and 10, clicked through as an agency owner would at desktop and phone width:
 * numbers that reconcile and say what they count, numbers that open their rows, names that open their
 * record, and charts that read right. Each screen opened is checked with axe (0 violations).
 * Screenshots go to E2E_SHOTS_DIR when it is set.
 */
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
async function expectNoAxeViolations(page: Page) {
  const result = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  expect(
    result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
  ).toEqual([]);
}
const A = `client_id=${CLIENTS.acme}`;
/** The first demo cohort's fixed id (apps/server/src/modules/cohorts/demo.ts demoCohortId). */
const demoCohortId = (clientId: string) => {
  const h = createHash('sha256').update(`rally-demo-cohort:${clientId}:0`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};
const countIn = async (page: Page, name: RegExp) =>
  Number(((await page.getByRole('button', { name }).textContent()) ?? '').replace(/\D/g, ''));

for (const [label, viewport] of [
  ['desktop', { width: 1280, height: 800 }],
  ['phone', { width: 390, height: 844 }],
] as const) {
  test.describe(`numbers and drill-down, ${label} (issue 42 items 6, 7, 10)`, () => {
    test.use({ viewport });
    // Several screens, drawers and axe runs each on a shared two-core machine.
    test.slow();

    test('Revenue: each card says what it counts and opens its rows; names open their record', async ({
      page,
    }) => {
      await signInTo(page, `/revenue?${A}`);
      // One definition per number, in a tooltip beside it.
      await expect(
        page.getByRole('button', { name: /^Engaged accounts: Accounts with at least one/ }),
      ).toBeVisible({ timeout: stretch(30_000) });
      // "12 engaged accounts" opens the twelve.
      const accounts = await countIn(page, /^See the \d+ accounts?/);
      expect(accounts).toBeGreaterThan(0);
      await page.getByRole('button', { name: /^See the \d+ accounts?/ }).click();
      const drawer = page.getByRole('dialog', { name: 'Engaged accounts' });
      const table = drawer.getByRole('table', { name: 'Engaged accounts' });
      await expect(table.getByRole('row')).toHaveCount(Math.min(accounts, 25) + 1);
      await expectNoAxeViolations(page);
      await shot(page, `revenue-engaged-accounts-${label}`);
      await page.getByRole('button', { name: 'Close the engaged accounts' }).click();

      // "Revenue influenced" opens the influenced deals; a deal's engaged prospect opens the prospect.
      const deals = await countIn(page, /^See the \d+ deals?/);
      await page.getByRole('button', { name: /^See the \d+ deals?/ }).click();
      await expect(page.getByRole('tab', { name: 'All opportunities' })).toHaveAttribute(
        'aria-selected',
        'true',
      );
      await expect(page.getByRole('radio', { name: 'Influenced' })).toBeChecked();
      const opportunities = page.getByRole('table', { name: 'Opportunities' });
      await expect(opportunities.getByRole('row')).toHaveCount(Math.min(deals, 25) + 1);
      // The first row's name (the header's buttons sort the columns: issue 42 item 11).
      await opportunities.getByRole('row').nth(1).getByRole('button').first().click();
      const opp = page.getByRole('dialog');
      const prospect = opp.getByRole('table', { name: 'Engaged prospects' }).getByRole('link').first();
      await expect(prospect).toBeVisible();
      await expectNoAxeViolations(page);
      await shot(page, `revenue-opportunity-drawer-${label}`);
      const name = (await prospect.textContent()) ?? '';
      await prospect.click();
      await expect(page).toHaveURL(/\/prospects\?.*prospect=/);
      await expect(page.getByRole('dialog')).toContainText(name);

      // The engagement chart: weeks named in the reader's locale, small counts on their own axis.
      await page.goto(`/revenue?${A}`);
      await expect(page.getByText('Clicks (right axis)')).toBeVisible();
      await page.getByText('Show the numbers').click();
      const weeks = page.getByRole('table', { name: 'Engagement per period' });
      await expect(weeks.getByRole('cell', { name: /^Week of / }).first()).toBeVisible();
      await expect(weeks.getByText(/^\d{4}-\d{2}-\d{2}$/)).toHaveCount(0);
    });

    test('the journey chart follows the stages, and its feed rows open it', async ({ page }) => {
      const cohort = demoCohortId(CLIENTS.acme);
      await signInTo(page, `/cohorts/${cohort}/journey/view?${A}`);
      const funnel = page.getByRole('list', { name: 'Funnel' });
      await expect(funnel.getByRole('listitem').first()).toBeVisible();
      const stages = (await funnel
        .locator('[data-stage]')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-stage') ?? ''))) as string[];
      await expect(page.getByTestId('journey-legend')).toHaveText(stages.join(''));
      // Hover the chart: each stage's own count, and the total of the funnel's.
      const total = Number(((await page.getByText(/^\d+ accounts ·/).textContent()) ?? '').split(' ')[0]);
      const chart = page.locator('.recharts-surface').first();
      await chart.scrollIntoViewIfNeeded();
      const box = (await chart.boundingBox())!;
      // A day near the end, inside the plot (hover scrolls the chart into view first).
      await chart.hover({ position: { x: box.width * 0.85, y: box.height / 2 } });
      await chart.hover({ position: { x: box.width * 0.9, y: box.height / 2 } });
      const tip = page.getByTestId('journey-tooltip');
      await expect(tip).toBeVisible();
      await expect(tip).toContainText(`All stages${total}`);
      await shot(page, `journey-chart-${label}`);
      await expectNoAxeViolations(page);

      // "Open the journey" on the feed opens the journey's stages, and a journey row its view.
      await page.goto(`/feed?${A}`);
      const attention = page.getByRole('link', { name: 'Open the journey' });
      if (await attention.count()) {
        await attention.first().click();
        await expect(page).toHaveURL(new RegExp(`/cohorts/${cohort}/journey\\?`));
        await page.goto(`/feed?${A}`);
      }
      const activity = page.getByRole('list', { name: 'Activity' });
      const row = activity.getByRole('link', { name: / moved to / }).first();
      await expect(row).toBeVisible();
      await row.click();
      await expect(page).toHaveURL(/\/journey\/view\?/);
      await page.goto(`/feed?${A}`);
      const person = page
        .getByRole('list', { name: 'Activity' })
        .getByRole('link', { name: /became a superprospect|clicked an ad/ })
        .first();
      await person.click();
      await expect(page).toHaveURL(/\/prospects\?.*prospect=/);
      await expect(page.getByRole('dialog')).toBeVisible();
    });

    test('an invoice states the days it covers and each line’s cadence or cohort; Contacted has one meaning', async ({
      page,
    }) => {
      await signInTo(page, `/settings/billing?${A}`);
      const invoices = (
        (await (
          await api(page.request, 'GET', `/biller/client/${CLIENTS.acme}/invoices`, undefined, CLIENTS.acme)
        ).json()) as {
          invoices: { id: string }[];
        }
      ).invoices;
      await page.goto(`/settings/billing/invoices/${invoices[0]!.id}?${A}`);
      await expect(page.getByTestId('invoice-covers')).toHaveText(/^Superprospects of .*\d{4}$/);
      await expect(page.getByText(/^Period:/)).toHaveCount(0);
      await expect(page.getByRole('columnheader', { name: 'Cadence or cohort' })).toBeVisible();
      await expect(page.getByRole('cell', { name: /^(Cadence|Cohort) / }).first()).toBeVisible();
      await expectNoAxeViolations(page);
      await shot(page, `invoice-${label}`);

      // Cadences count as contacted whoever the CRM records outreach to, like Reports' "Contacted after".
      await page.goto(`/cadence?${A}`);
      await expect(
        page.getByRole('button', { name: /^Contacted: Prospects your sales team reached/ }),
      ).toBeAttached();
      const stats = (await (
        await api(page.request, 'GET', '/sc/cadence', undefined, CLIENTS.acme)
      ).json()) as { counts: { contacted: number } }[];
      const contacted = stats.reduce((n, c) => n + c.counts.contacted, 0);
      await page.goto(`/reports?${A}&tab=engagement&view=signals`);
      const after = page
        .getByText('Contacted after')
        .locator('xpath=ancestor::div[contains(@class,"Paper")][1]');
      await expect(after).toBeVisible();
      const afterCount = Number(
        ((await after.textContent()) ?? '').match(/Contacted after\s*(\d+)/)?.[1] ?? NaN,
      );
      expect(afterCount).toBeGreaterThan(0);
      expect(contacted).toBeGreaterThanOrEqual(afterCount);
    });
  });
}
