import { readFileSync } from 'node:fs';
import { expect, test, stretch } from './fixtures.ts';
import { CLIENTS, api, signInAs, signInTo } from './support.ts';
import { shot } from './shots.ts';

/**
 * Issue 17: the Revenue screen on the demo data (a Salesforce-like CRM with opportunities over six
 * months, and the demo engagement), in Chromium.
 */
test.describe('/revenue (issue 17)', () => {
  test('headline numbers, the tables behind them, one opportunity opened, and a CSV export', async ({
    page,
  }) => {
    test.setTimeout(180_000);
    await signInTo(page, `/revenue?client_id=${CLIENTS.acme}`);
    await expect(page.getByRole('heading', { name: 'Revenue', level: 1 })).toBeVisible();
    // The demo's ads were seen before some of its opportunities: the numbers are real, not zero.
    // They come from the stored attribution, which the workers compute after the server starts:
    // as the first test of a fresh server under load it was not there yet, so the page is read again.
    const generated = page.locator('text=Pipeline generated').first().locator('xpath=..');
    await expect(async () => {
      await page.reload();
      await expect(generated).toContainText(/\$\d/, { timeout: stretch(5_000) });
    }).toPass({ timeout: stretch(90_000) });
    await expect(page.getByText(/of \d+ new opportunities/)).toBeVisible();
    // value_report: what the superprospects cost against what followed.
    await expect(
      page.getByText(
        /Rally fee \(\d+ superprospects?\) in this period|network spend in this period|Nothing was spent in this period/,
      ),
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
    const drawer = page.getByRole('dialog');
    // The list of all opportunities shows Closed Won rows too: a click while the Won list replaces it
    // can land on a row that goes away, so it is tried again until the drawer opens.
    await expect(async () => {
      // The first row's name (the header's buttons sort the columns: issue 42 item 11).
      await opportunities.getByRole('row').nth(1).getByRole('button').first().click();
      await expect(drawer.getByRole('heading', { name: 'Stage history' })).toBeVisible({
        timeout: stretch(3_000),
      });
    }).toPass({ timeout: stretch(20_000) });
    await expect(drawer.getByRole('heading', { name: 'Engaged prospects' })).toBeVisible();
    await drawer.getByRole('button', { name: 'Close the opportunity' }).click();

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export all (CSV)' }).click(),
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

/** Issue 22: the custom period uses the shared date picker, on a phone with a touch screen. */
test.describe('/revenue custom period on a phone (issue 22)', () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, locale: 'en-GB' });

  test('a swipe goes back a month, two taps choose the days, the report follows', async ({ page }) => {
    await signInTo(page, `/revenue?client_id=${CLIENTS.acme}`);
    await expect(page.getByRole('heading', { name: 'Revenue', level: 1 })).toBeVisible();
    await page.getByRole('radiogroup', { name: 'Period' }).getByText('Custom', { exact: true }).click();
    const field = page.getByRole('textbox', { name: 'Custom period' });
    await expect(field).toHaveValue(/^\d{1,2} \w{3} \d{4} – \d{1,2} \w{3} \d{4}$/);

    await page.getByRole('button', { name: 'Open the calendar: Custom period' }).click();
    const dialog = page.getByRole('dialog', { name: 'Custom period: calendar' });
    const calendar = dialog.getByTestId('calendar');
    // en-GB (the browser's locale here) starts the week on Monday.
    await expect(calendar.getByRole('columnheader').first()).toHaveText('Mo');
    const monthName = (d: Date) => d.toLocaleString('en-GB', { month: 'long', year: 'numeric' });
    const today = new Date();
    // The custom range starts as the last 30 days: the calendar opens on the month of its first day.
    const first = new Date(today.getFullYear(), today.getMonth(), today.getDate() - 29);
    const previous = new Date(first.getFullYear(), first.getMonth() - 1, 1);
    await expect(calendar.getByText(monthName(first), { exact: true })).toBeVisible();

    // A quick swipe to the right (≤ 300 ms, ≥ 60 px across, ≤ 80 px up or down): the month before.
    await calendar.evaluate((el) => {
      const box = el.getBoundingClientRect();
      const y = box.top + 80;
      const touch = (x: number) =>
        new Touch({ identifier: 1, target: el, clientX: x, clientY: y, pageX: x, pageY: y });
      el.dispatchEvent(
        new TouchEvent('touchstart', {
          bubbles: true,
          changedTouches: [touch(box.left + 40)],
          touches: [touch(box.left + 40)],
        }),
      );
      el.dispatchEvent(
        new TouchEvent('touchend', { bubbles: true, changedTouches: [touch(box.left + 140)], touches: [] }),
      );
    });
    await expect(calendar.getByText(monthName(previous), { exact: true })).toBeVisible();

    const dayLabel = (d: number) =>
      new Date(previous.getFullYear(), previous.getMonth(), d).toLocaleString('en-GB', {
        day: 'numeric',
        month: 'long',
        year: 'numeric',
      });
    const expected = await page.evaluate(
      ([y, m]) => ({
        from: Math.floor(new Date(y, m, 5).getTime() / 1000),
        to: Math.floor(new Date(y, m, 21).getTime() / 1000),
      }),
      [previous.getFullYear(), previous.getMonth()] as const,
    );
    const summary = page.waitForRequest(
      (r) =>
        r.url().includes('/summary') && new URL(r.url()).searchParams.get('from') === String(expected.from),
    );
    await calendar.getByRole('button', { name: dayLabel(5), exact: true }).tap();
    await calendar.getByRole('button', { name: dayLabel(20), exact: true }).tap();
    const url = new URL((await summary).url());
    expect(Number(url.searchParams.get('from'))).toBe(expected.from);
    expect(Number(url.searchParams.get('to'))).toBe(expected.to);
    const short = `${['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][previous.getMonth()]} ${previous.getFullYear()}`;
    await expect(field).toHaveValue(`5 ${short} – 20 ${short}`);
    // The popover closes on its own (110 ms after the second day).
    await expect(dialog).toBeHidden();
    await expect(page.getByText(/of \d+ new opportunities/)).toBeVisible();
    await shot(page, 'revenue-custom-phone', { fullPage: true });
  });
});

/** Issue 22: the file import screen offers revenue (opportunities) beside prospects. */
test('revenue import from the app: the revenue kind, the column mapping, a dry run and the progress', async ({
  page,
}) => {
  await signInTo(page, `/settings/integrations/fileforce?client_id=${CLIENTS.acme}`);
  await page.getByRole('link', { name: 'Import revenue' }).click();
  await expect(page.getByRole('heading', { name: 'Upload your revenue' })).toBeVisible();
  await expect(page.getByRole('radio', { name: 'Revenue (opportunities)' })).toBeChecked();
  const id = `E2E-${Date.now()}`;
  const csv = [
    'Opportunity Id,Opportunity Name,Account,Amount,Stage,Close Date',
    `${id}-1,Acme - Pilot,Acme Robotics,"$12,500.00",Negotiation,2026-12-15`,
    `${id}-2,Acme - Unpriced,Acme Robotics,lots,Prospecting,2026-12-20`,
  ].join('\n');
  // Mantine's file field is a button; the file goes to its hidden input.
  await page
    .locator('input[type="file"]')
    .setInputFiles({ name: 'revenue.csv', mimeType: 'text/csv', buffer: Buffer.from(`${csv}\n`) });
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Match your columns' })).toBeVisible();
  // The revenue fields, matched from the header row.
  await expect(page.getByLabel('Column for Amount', { exact: true }).first()).toHaveValue('Amount');
  await expect(page.getByLabel('Column for Close date', { exact: true }).first()).toHaveValue('Close Date');
  await page.getByRole('button', { name: 'Check the file' }).click();
  const report = page.getByRole('region', { name: 'Check report' });
  await expect(report).toContainText('Rows with problems');
  await shot(page, 'revenue-import-check', { fullPage: true });
  await page.getByRole('button', { name: 'Import 1 row' }).click();
  await expect(page.getByText('1 row imported')).toBeVisible({ timeout: stretch(30_000) });
  await expect(page.getByRole('progressbar', { name: 'Import progress 100%' })).toBeVisible();
  await page.getByRole('button', { name: 'Continue' }).click();

  const res = await api(
    page.request,
    'GET',
    `/v1/integration/crm/fileforce/client/${CLIENTS.acme}/revenue?page_size=100`,
    undefined,
    CLIENTS.acme,
  );
  expect(res.status()).toBe(200);
  const items = (await res.json()).items as { opportunity_id: string; amount_cents: number; stage: string }[];
  expect(items.find((o) => o.opportunity_id === `${id}-1`)).toMatchObject({
    amount_cents: 1_250_000,
    stage: 'Negotiation',
  });
  expect(items.some((o) => o.opportunity_id === `${id}-2`)).toBe(false);
});
