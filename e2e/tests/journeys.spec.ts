import type { Browser } from '@playwright/test';
import { expect, test, stretch } from './fixtures.ts';
import { CLIENTS, signInTo } from './support.ts';
import { shot } from './shots.ts';

/** The demo marketing manager of Acme (apps/server/src/db/seed.ts). */
const MORGAN = { email: 'morgan@rally.test', password: 'rally-demo-2026', name: 'Morgan Lee' };
const PROSPECT_UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

/** A browser of the prospect: no Rally session, a desktop browser's user agent. */
async function prospectBrowser(browser: Browser, baseURL: string) {
  const context = await browser.newContext({ userAgent: PROSPECT_UA, baseURL });
  const origin = new URL(baseURL).origin;
  await context.route(
    (url) => url.origin !== origin,
    (route) => route.fulfill({ status: 204, body: '' }),
  );
  return context;
}

/**
 * Issue 18: a manager builds a two-stage journey with content on a new cohort, opens a member's ad
 * tag as the prospect would, and sees the member's account move stage in the journey view without
 * a reload (the e2e server runs the journey rules every 2 s; the view asks every 5 s).
 */
test('a manager builds a two-stage journey; an ad seen moves the member stage in the journey view', async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  await signInTo(page, `/cohorts/new?client_id=${CLIENTS.acme}`, MORGAN);
  await expect(page.getByRole('heading', { name: 'New cohort', level: 1 })).toBeVisible({
    timeout: stretch(20_000),
  });
  const name = `Journey directors ${Date.now()}`;
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Title contains').fill('Director');
  await page.getByRole('button', { name: 'Create cohort' }).click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible({ timeout: stretch(20_000) });
  await expect(page.getByText(/^Synced /)).toBeVisible({ timeout: stretch(30_000) });
  const cohortId = new URL(page.url()).pathname.split('/')[2]!;

  // The builder, from the cohort page: keep two stages, each with an ad; Aware after one impression.
  await page.getByRole('link', { name: 'Journey builder' }).click();
  await expect(page.getByRole('heading', { name: 'New journey', level: 1 })).toBeVisible({
    timeout: stretch(20_000),
  });
  for (const stage of ['Customer', 'Opportunity', 'Engaged']) {
    await page.getByRole('button', { name: `Remove ${stage}` }).click();
  }
  await expect(page.getByRole('listitem', { name: /^Stage \d/ })).toHaveCount(2);
  await page.getByLabel('Stage 1 name').fill('Cold');
  await page.getByRole('combobox', { name: 'Ads of Cold' }).click();
  await page.getByRole('option').first().click();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('group', { name: 'Ad previews of Cold' }).getByRole('img')).toHaveCount(1);
  await page.getByRole('combobox', { name: 'Ads of Aware' }).click();
  await page.getByRole('option').nth(1).click();
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'Add a rule to Aware' }).click();
  await expect(page.getByLabel('Value of rule 1 of Aware')).toHaveValue('1');
  await shot(page, 'journey-builder', { fullPage: true });
  await page.getByRole('button', { name: 'Save journey' }).click();

  // The journey view: every account starts in Cold.
  // Saving writes the journey and places every member: on a loaded machine, more than the 10 s default.
  await expect(page).toHaveURL(new RegExp(`/cohorts/${cohortId}/journey/view`), { timeout: stretch(30_000) });
  const cold = page.getByTestId('stage-count-Cold');
  const aware = page.getByTestId('stage-count-Aware');
  await expect
    .poll(async () => Number(await cold.textContent()), { timeout: stretch(30_000) })
    .toBeGreaterThan(0);
  await expect(aware).toHaveText('0');
  await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));

  // One member's ad tag, opened as the prospect would.
  const segment = await page.request.get(`/v1/rest/cohort/${cohortId}/segment?page_size=1`, {
    headers: { 'x-client-id': CLIENTS.acme },
  });
  expect(segment.status()).toBe(200);
  const member = ((await segment.json()) as { items: { ad_tag: string; company_name: string | null }[] })
    .items[0]!;
  const visitor = await prospectBrowser(browser, baseURL!);
  try {
    const seen = await visitor.newPage();
    const ad = await seen.goto(member.ad_tag);
    expect(ad?.status()).toBe(200);
    expect(ad?.headers()['content-type']).toBe('image/png');
  } finally {
    await visitor.close();
  }

  // Without a reload: the account is in Aware, and the move is listed.
  await expect(aware).toHaveText('1', { timeout: stretch(30_000) });
  const moves = page.getByRole('table', { name: 'Stage moves' });
  await expect(moves.getByRole('row').filter({ hasText: 'Aware' }).first()).toContainText('Cold');
  if (member.company_name) await expect(moves).toContainText(member.company_name);
  expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
  await shot(page, 'journey-view', { fullPage: true });

  // The cohort page shows each member's stage.
  await page.goto(`/cohorts/${cohortId}?client_id=${CLIENTS.acme}`);
  await expect(
    page.getByRole('table', { name: 'Members' }).getByRole('cell', { name: 'Aware', exact: true }).first(),
  ).toBeVisible({ timeout: stretch(15_000) });
});
