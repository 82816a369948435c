import { readFileSync } from 'node:fs';
import { expect, test } from './fixtures.ts';
import { CLIENTS, api, signInAs } from './support.ts';

/**
 * Issue 17: the Revenue screen on the demo data (a Salesforce-like CRM with opportunities over six
 * months, and the demo engagement), in Chromium.
 */
test.describe('/revenue (issue 17)', () => {
  test('headline numbers, the tables behind them, one opportunity opened, and a CSV export', async ({
    page,
  }) => {
    await signInAs(page);
    await page.goto(`/revenue?client_id=${CLIENTS.acme}`);
    await expect(page.getByRole('heading', { name: 'Revenue', level: 1 })).toBeVisible();
    // The demo's ads were seen before some of its opportunities: the numbers are real, not zero.
    const generated = page.locator('text=Pipeline generated').first().locator('xpath=..');
    await expect(generated).toContainText(/\$\d/);
    await expect(page.getByText(/of \d+ new opportunities/)).toBeVisible();
    // value_report: what the superprospects cost against what followed.
    await expect(
      page.getByText(/spent on \d+ superprospects? in this period|No superprospect was billed/),
    ).toBeVisible();
    const table = page.getByRole('table', { name: 'Pipeline generated' });
    await expect(table.getByRole('row')).not.toHaveCount(1);

    await page.getByRole('tab', { name: 'All opportunities' }).click();
    await page
      .getByRole('radiogroup', { name: 'Which opportunities' })
      .getByText('Won', { exact: true })
      .click();
    const opportunities = page.getByRole('table', { name: 'Opportunities' });
    await expect(opportunities.getByText('Closed Won').first()).toBeVisible();
    await opportunities.getByRole('button').first().click();
    const drawer = page.getByRole('dialog');
    await expect(drawer.getByRole('heading', { name: 'Stage history' })).toBeVisible();
    await expect(drawer.getByRole('heading', { name: 'Engaged prospects' })).toBeVisible();
    await drawer.getByRole('button', { name: 'Close the opportunity' }).click();

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^opportunities-won-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = readFileSync((await download.path()) ?? '', 'utf8');
    expect(csv.split('\r\n')[0]).toContain('Opportunity,Account,Stage,Amount');
    expect(csv).toContain('Closed Won');

    // Engagement per week (GET /sc/performance/by_date) with its numbers as a table, and its export.
    await page
      .getByRole('radiogroup', { name: 'Engagement per' })
      .getByText('Monthly', { exact: true })
      .click();
    await page.getByText('Show the numbers').click();
    const perPeriod = page.getByRole('table', { name: 'Engagement per period' });
    await expect(perPeriod.getByRole('columnheader', { name: 'Month' })).toBeVisible();
    const [engagement] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export engagement' }).click(),
    ]);
    expect(engagement.suggestedFilename()).toMatch(/^performance-monthly-/);
  });

  test('with the report off (SPEC.md §3: revenue_report_enabled defaults to false) it says so, and an owner turns it on', async ({
    page,
  }) => {
    await signInAs(page);
    const off = await api(
      page.request,
      'PUT',
      `/v1/rest/client/${CLIENTS.agency}/settings`,
      { revenue_report_enabled: false },
      CLIENTS.agency,
    );
    expect(off.status()).toBe(200);
    await page.goto(`/revenue?client_id=${CLIENTS.agency}`);
    await expect(
      page.getByRole('heading', { name: 'The revenue report is off for this client' }),
    ).toBeVisible();
    await page.getByRole('button', { name: 'Turn on the revenue report' }).click();
    await expect(page.getByText('Pipeline progressed').first()).toBeVisible();
    const settings = await api(
      page.request,
      'GET',
      `/v1/rest/client/${CLIENTS.agency}/settings`,
      undefined,
      CLIENTS.agency,
    );
    expect((await settings.json()).revenue_report_enabled).toBe(true);
  });
});
