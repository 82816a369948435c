import { expect, test, stretch } from './fixtures.ts';
import { CLIENTS, importCadence, signInAs } from './support.ts';
import { openProspectDrawer, prospectBrowser, showAdsOnDay, tagsIn } from './tag-walk.ts';
import { shot } from './shots.ts';

/**
 * Issue 7 end to end: "an owner switches ads on for a cadence, assigns content to day 2, opens a
 * target's ad tag and clicks it, and sees the click and the new superprospect in the feed without
 * reloading". ARCHITECTURE.md §5: `GET /t/{token}/ad/{size}.png` "renders the content for the
 * target's current day ... and logs an impression; `GET /t/{token}/c` logs a click and redirects to
 * the landing page"; "a target becomes super when it has at least 1 click, or at least 15
 * impressions". The cadence and its prospects are this test's own (a file imported through the
 * app), so other suites sharing the demo server cannot change what it sees and its prospect is known
 * not to be super before the click. It runs in Acme Robotics, whose feed and imports no other suite
 * counts (the prospects and feed suite expects Northwind to have no import but its own), and shows
 * Acme's seeded ad "Picks per hour", which no suite edits (apps/server/src/modules/content/demo.ts).
 */

const ACME = CLIENTS.acme;
/** One of Acme's two seeded published ads; its clicks land on Acme's seeded landing page. */
const CONTENT = 'Picks per hour';
test.describe.configure({ timeout: stretch(150_000) });

test('an owner switches ads on, puts content on day 2, a target opens the ad tag and clicks; the feed shows the click and the new superprospect live', async ({
  page,
  browser,
  baseURL,
}) => {
  const stamp = Date.now().toString(36);
  const cadence = `E2E tag walk ${stamp}`;
  // Letters only: the import takes names as they are, and the search finds them.
  const last = `Walker${stamp.replace(/\d/g, (d) => 'abcdefghij'[Number(d)]!)}`;
  const who = { first: 'Tess', last };
  const name = `${who.first} ${who.last}`;

  await signInAs(page);
  await importCadence(page.request, ACME, cadence, who);

  // The cadence screen: ads are off for a newly imported cadence; switch them on, content on day 2.
  await showAdsOnDay(page, ACME, cadence, 2, CONTENT);
  await shot(page, 'walk-cadence', { fullPage: true });

  // The feed, open in its own tab; the page must not reload.
  const feed = await page.context().newPage();
  const feedErrors: string[] = [];
  feed.on('pageerror', (err) => feedErrors.push(err.message));
  await feed.goto(`/feed?client_id=${ACME}`);
  await expect(feed.getByRole('heading', { name: 'Feed', level: 1 })).toBeVisible();
  await expect(feed.getByText('Live', { exact: true })).toBeVisible();
  const activity = feed.getByRole('list', { name: 'Activity' });
  await expect(activity.locator('li').first()).toBeVisible();
  await feed.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
  await expect(activity.locator('li', { hasText: name })).toHaveCount(0);

  // The prospect's drawer: on day 2 of the cadence, not super yet, with the entry's tags.
  const drawer = await openProspectDrawer(page, ACME, name);
  const entries = drawer.getByRole('table', { name: 'Cadence entries' });
  const row = entries.getByRole('row').filter({ hasText: cadence });
  await expect(row).toContainText('Day 2');
  await expect(row).toContainText('Not yet');
  await expect(drawer.getByText('Superprospect', { exact: true })).toHaveCount(0);
  const { tags, adTag, clickTag, token } = await tagsIn(drawer, cadence, baseURL!);
  await expect(tags.getByRole('link', { name: /Open ad/ })).toHaveAttribute('href', adTag);
  await expect(tags.getByRole('button', { name: `Copy Ad tag, ${cadence}` })).toBeVisible();
  await expect(tags.getByRole('button', { name: `Copy Click tag, ${cadence}` })).toBeVisible();
  await shot(drawer, 'walk-drawer-tags');
  await shot(page, 'walk-drawer');

  // The prospect sees the ad (a 200 PNG: day 2's content) and clicks it (302 to the landing page).
  const visitor = await prospectBrowser(browser, baseURL!);
  try {
    const seen = await visitor.newPage();
    const ad = await seen.goto(adTag);
    expect(ad?.status()).toBe(200);
    expect(ad?.headers()['content-type']).toBe('image/png');
    expect((await ad!.body()).subarray(1, 4).toString('ascii')).toBe('PNG');
    await shot(seen, 'walk-ad');

    // A person looks at the ad before clicking it: a click within a second of the image fetch is
    // part of a mail scanner's burst and is not counted (decision 0017).
    await seen.waitForTimeout(1_200);
    const clicked = await seen.goto(clickTag);
    const redirect = clicked?.request().redirectedFrom();
    expect(redirect?.url()).toBe(clickTag);
    expect((await redirect!.response())?.status()).toBe(302);
    expect(seen.url()).toMatch(new RegExp(`/lp/[1-9A-HJ-NP-Za-km-z]+\\?t=${token}$`));
    expect(clicked?.status()).toBe(200);
    await shot(seen, 'walk-landing');
  } finally {
    await visitor.close();
  }

  // Back on the feed tab, no reload: the click and the new superprospect, pushed live.
  const clickItem = activity.locator('li', { hasText: `${name} clicked an ad` });
  const superItem = activity.locator('li', { hasText: `${name} became a superprospect after an ad click` });
  await expect(clickItem).toBeVisible({ timeout: stretch(20_000) });
  await expect(superItem).toBeVisible({ timeout: stretch(20_000) });
  await expect(clickItem).toContainText(cadence);
  await expect(clickItem).toContainText('rep Maya Lindgren');
  await expect(superItem).toContainText('just now');
  expect(await feed.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
  await shot(feed, 'walk-feed', { fullPage: true });
  expect(feedErrors).toEqual([]);

  // And the prospect is super in that cadence now, with the impression and the click counted.
  const after = await openProspectDrawer(page, ACME, name);
  await expect(after.getByText('Superprospect', { exact: true })).toBeVisible();
  const rowAfter = after
    .getByRole('table', { name: 'Cadence entries' })
    .getByRole('row')
    .filter({ hasText: cadence });
  await expect(rowAfter).not.toContainText('Not yet');
  const cells = rowAfter.getByRole('cell');
  // Engagements: the click (and the landing page's view, once it reports); impressions: the ad.
  await expect(cells.nth(2)).toHaveText(/^[12]$/);
  await expect(cells.nth(3)).toHaveText('1');
});
