import { expect, test } from './fixtures.ts';
import { CLIENTS, signInTo } from './support.ts';

/**
 * Issue 39 in the browser: the owner connects Meta (the fake on loopback, started by the global
 * setup) from Settings › Ad networks through the real OAuth redirect, chooses the ad account and
 * page, then runs a demo cohort on Meta from its page and reads why the audience is held (the demo
 * cohorts are under Meta's minimum of 100 matched people).
 */
test('an owner connects Meta, chooses the ad account and runs a cohort on it', async ({ page }) => {
  await signInTo(page, `/settings/ad-networks?client_id=${CLIENTS.acme}`);
  await expect(page.getByRole('heading', { name: 'Ad networks', level: 1 })).toBeVisible();
  // The settings navigation lists the page under Integrations.
  await expect(page.getByRole('link', { name: 'Ad networks' }).first()).toBeVisible();
  const card = page.getByRole('region', { name: 'Meta (Facebook and Instagram)' });
  await card.getByRole('button', { name: 'Connect Meta' }).click();
  await expect(page).toHaveURL(
    new RegExp(`/settings/ad-networks\\?client_id=${CLIENTS.acme}&connected=meta`),
  );
  await expect(page.getByText('Meta is connected')).toBeVisible();
  await expect(card.getByText('Connected', { exact: true })).toBeVisible();
  await expect(card.getByText('Ana Marketer')).toBeVisible();

  // A click that lands while the accounts are still arriving opens nothing: click until it opens.
  const choose = async (field: string, option: string) => {
    await expect(async () => {
      await card.getByLabel(field).click();
      await expect(page.getByRole('option', { name: option })).toBeVisible({ timeout: 2_000 });
    }).toPass();
    await page.getByRole('option', { name: option }).click();
  };
  await choose('Ad account', 'Acme Ads (USD)');
  await choose('Facebook page', 'Acme on Facebook');
  await card.getByRole('button', { name: 'Save' }).click();
  await expect(card.getByText('Meta ad account set to Acme Ads.')).toBeVisible();
  await page.screenshot({ path: 'test-results/ad-networks-settings.png', fullPage: true });

  await page.goto(`/cohorts?client_id=${CLIENTS.acme}`);
  await page.getByRole('table', { name: 'Cohorts' }).getByRole('link', { name: 'Engaged prospects' }).click();
  const panel = page.getByRole('region', { name: 'Run on networks' });
  await panel.getByRole('button', { name: 'Run on Meta' }).click();
  await expect(panel.getByText('Held')).toBeVisible({ timeout: 20_000 });
  await expect(panel.getByText(/shows ads only to audiences of at least 100 matched people/)).toBeVisible();
  await page.screenshot({ path: 'test-results/ad-networks-cohort.png', fullPage: true });

  // The demo's first cohort has a journey: its view offers each stage as a network audience.
  await page.goto(`/cohorts?client_id=${CLIENTS.acme}`);
  await page
    .getByRole('table', { name: 'Cohorts' })
    .getByRole('link')
    .filter({ hasNotText: 'Engaged prospects' })
    .first()
    .click();
  await page.getByRole('link', { name: 'Journey view' }).click();
  const stages = page.getByRole('region', { name: 'Run on networks' });
  await expect(stages.getByText(/the members of the accounts in “/)).toBeVisible();
  await stages.getByRole('button', { name: 'Run on Meta' }).click();
  await expect(stages.getByText(/^(Held|Ready)$/)).toBeVisible({ timeout: 20_000 });
  await page.screenshot({ path: 'test-results/ad-networks-journey.png', fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/settings/ad-networks?client_id=${CLIENTS.acme}`);
  await expect(page.locator('input[value="Acme Ads (USD)"]')).toBeVisible();
  await page.screenshot({ path: 'test-results/ad-networks-settings-phone.png', fullPage: true });
});
