import type { Browser, Locator, Page } from '@playwright/test';
import { expect, stretch } from './fixtures.ts';

/**
 * Steps the tag walks share (issue 7's engagement walk, issue 44's opt-out walk): ads switched on for
 * a cadence with content on a day, a prospect's drawer and tags, and the prospect's own browser.
 */

/** The prospect's own browser: an ordinary desktop Chrome (a headless user agent counts as a bot). */
export const PROSPECT_UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

/** A fresh browser for the prospect: no session, an ordinary user agent, nothing off our origin. */
export async function prospectBrowser(browser: Browser, baseURL: string) {
  const context = await browser.newContext({ userAgent: PROSPECT_UA, baseURL });
  const origin = new URL(baseURL).origin;
  await context.route(
    (url) => url.origin !== origin,
    (route) => route.fulfill({ status: 204, body: '' }),
  );
  return context;
}

/** On the cadence's screen: "Show ads" on, and `content` on `day`, saved. */
export async function showAdsOnDay(
  page: Page,
  clientId: string,
  cadence: string,
  day: number,
  content: string,
) {
  await page.goto(`/cadence?client_id=${clientId}`);
  await page.getByRole('table', { name: 'Cadences' }).getByRole('link', { name: cadence }).click();
  await expect(page.getByRole('heading', { level: 1, name: cadence })).toBeVisible();
  await expect(page.getByLabel('Status: Active')).toBeVisible();
  const ads = page.getByRole('switch', { name: 'Show ads' });
  await expect(ads).not.toBeChecked();
  await ads.check();
  await expect(ads).toBeChecked();
  await expect(ads).toBeEnabled();
  const region = page.getByRole('region', { name: `Day ${day}` });
  await expect(region.getByLabel(`Day ${day} counts`)).toContainText('1Total');
  await region.getByRole('button', { name: `Add content to Day ${day}` }).click();
  await region.getByLabel(`Day ${day}, content 1: content`).click();
  await page.getByRole('option', { name: content }).click();
  await expect(region.getByLabel(`Day ${day}, content 1: content`)).toHaveValue(content);
  const bar = page.getByRole('region', { name: 'Unsaved changes' });
  await bar.getByRole('button', { name: 'Save changes' }).click();
  await expect(bar).toHaveCount(0);
}

/** The prospect's drawer, found by name on the Prospects screen. */
export async function openProspectDrawer(page: Page, clientId: string, name: string) {
  await page.goto(`/prospects?client_id=${clientId}`);
  await page.getByRole('textbox', { name: 'Search prospects' }).fill(name);
  const rows = page.getByRole('table', { name: 'Prospects' }).locator('tbody tr');
  await expect(rows).toHaveCount(1, { timeout: stretch(15_000) });
  await page.getByRole('button', { name }).click();
  const drawer = page.getByRole('dialog', { name });
  await expect(drawer).toBeVisible();
  return drawer;
}

/** The ad and click tags the drawer shows for `cadence`, and the target's token in them. */
export async function tagsIn(drawer: Locator, cadence: string, baseURL: string) {
  const tags = drawer.getByRole('region', { name: `Tags for ${cadence}` });
  const adTag = await tags.getByRole('textbox', { name: `Ad tag, ${cadence}` }).inputValue();
  const clickTag = await tags.getByRole('textbox', { name: `Click tag, ${cadence}` }).inputValue();
  expect(adTag).toMatch(new RegExp(`^${baseURL}/t/[A-Za-z0-9_-]+/ad/300x250\\.png$`));
  const token = adTag.split('/t/')[1]!.split('/')[0]!;
  expect(clickTag).toBe(`${baseURL}/t/${token}/c`);
  return { tags, adTag, clickTag, token };
}

/** The impressions cell of the drawer's row for `cadence`. */
export const impressionsCell = (drawer: Locator, cadence: string) =>
  drawer
    .getByRole('table', { name: 'Cadence entries' })
    .getByRole('row')
    .filter({ hasText: cadence })
    .getByRole('cell')
    .nth(3);
