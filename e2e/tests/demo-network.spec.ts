import { expect, test, stretch } from './fixtures.ts';
import { CLIENTS, signInTo } from './support.ts';
import { shot } from './shots.ts';

/**
 * Issue 39 "The demo gets a connected network … so a new user sees the channel working on
 * `npm start`" (decision 0037): the demo user opens Northwind (where they land) and finds Meta
 * connected to the in-process fake, then a campaign's four weeks of results, pulled by the stats job
 * at the seed, in its chart and table and in Reports.
 */
test('the demo user finds Meta connected and a live campaign with four weeks of results', async ({
  page,
}) => {
  await signInTo(page, `/settings/ad-networks?client_id=${CLIENTS.agency}`);
  const card = page.getByRole('region', { name: 'Meta (Facebook and Instagram)' });
  await expect(card.getByText('Connected', { exact: true })).toBeVisible();
  await expect(card.getByText('Ana Marketer')).toBeVisible();
  await expect(page.locator('input[value="Northwind Ads (USD)"]')).toBeVisible();
  await expect(card.getByRole('button', { name: 'Connect Meta' })).toHaveCount(0);
  await shot(page, 'demo-network-settings', { fullPage: true });

  // Reports list the network campaigns beside the ads' own; the live one opens its page.
  await page.goto(`/reports?client_id=${CLIENTS.agency}&tab=engagement&view=content`);
  const networks = page.getByRole('table', { name: 'Network campaigns' });
  await expect(networks.getByRole('link', { name: 'Growth audit launch' })).toBeVisible({
    timeout: stretch(30_000),
  });
  await shot(page, 'demo-network-reports', { fullPage: true });
  await networks.getByRole('link', { name: 'Engaged accounts · always on' }).click();
  await expect(page).toHaveURL(/\/network-campaigns\/[0-9a-f-]{36}\?client_id=/);
  const results = page.getByRole('region', { name: 'Results' });
  const table = results.getByRole('table', { name: 'Results per day' });
  // 29 days (four weeks ago to today), a row each.
  await expect(table.getByRole('row')).toHaveCount(30, { timeout: stretch(30_000) });
  // The first sync after start draws the ads; the screenshot waits for both pictures.
  for (const placement of [/Feed \(square\)/, /Feed link and right column/]) {
    const img = page.getByRole('img', { name: placement });
    await expect(img).toBeVisible();
    await expect
      .poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0))
      .toBe(true);
  }
  await shot(page, 'demo-network-campaign', { fullPage: true });

  // Revenue: the return line names the network spend beside Rally's fee.
  await page.goto(`/revenue?client_id=${CLIENTS.agency}`);
  await expect(page.getByText(/network spend/).first()).toBeVisible({ timeout: stretch(30_000) });
  await shot(page, 'demo-network-revenue', { fullPage: true });
});
