import { expect, test, stretch } from './fixtures.ts';
import { CLIENTS, importCadence, signInAs } from './support.ts';
import { impressionsCell, openProspectDrawer, prospectBrowser, showAdsOnDay, tagsIn } from './tag-walk.ts';
import { shot } from './shots.ts';

/**
 * Issue 44's opt-out in Chromium: "a prospect opens an ad, follows 'Why am I seeing this?', stops the
 * ads; their tag then serves the neutral image and counts nothing; an import of the same person keeps
 * them suppressed". The cadence and its prospect are this test's own (imported through the app), in
 * Acme, showing Acme's seeded ad "Picks per hour", whose clicks land on Acme's seeded landing page.
 */
const ACME = CLIENTS.acme;
const CONTENT = 'Picks per hour';
test.describe.configure({ timeout: stretch(180_000) });

test('a prospect stops the ads from the landing page; the tag then serves the neutral image and counts nothing, and a re-import keeps them out', async ({
  page,
  browser,
  baseURL,
}) => {
  const stamp = Date.now().toString(36);
  const cadence = `E2E opt-out ${stamp}`;
  const last = `Optout${stamp.replace(/\d/g, (d) => 'abcdefghij'[Number(d)]!)}`;
  const who = { first: 'Nora', last };
  const name = `${who.first} ${who.last}`;
  const email = `${who.first}.${who.last}@tagwalk.example`.toLowerCase();

  await signInAs(page);
  await importCadence(page.request, ACME, cadence, who);
  await showAdsOnDay(page, ACME, cadence, 2, CONTENT);
  const drawer = await openProspectDrawer(page, ACME, name);
  const { adTag, clickTag } = await tagsIn(drawer, cadence, baseURL!);

  const visitor = await prospectBrowser(browser, baseURL!);
  let shown: Buffer;
  try {
    const seen = await visitor.newPage();
    const ad = await seen.goto(adTag);
    expect(ad?.status()).toBe(200);
    shown = await ad!.body();
    // A person looks before clicking (a click within a second of the image is a scanner's, decision 0017).
    await seen.waitForTimeout(1_200);
    await seen.goto(clickTag);
    await expect(seen).toHaveURL(/\/lp\/[1-9A-HJ-NP-Za-km-z]+\?t=/);

    // The landing page's small link, then the page that says who showed the ad and why.
    await seen.getByRole('link', { name: 'Why am I seeing this?' }).click();
    await expect(seen).toHaveURL(/\/why\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    await expect(seen.getByText(/This ad was shown to you by/)).toBeVisible();
    await expect(seen.getByText('Acme Robotics').first()).toBeVisible();
    expect(await seen.content()).not.toContain(email);
    await shot(seen, 'opt-out-why', { fullPage: true });
    await seen.getByRole('button', { name: 'Stop showing me these ads' }).click();
    await expect(seen.getByText(/You will not see these ads again/)).toBeVisible();
    await shot(seen, 'opt-out-done', { fullPage: true });

    // The same tag now serves the neutral image, every time.
    for (let i = 0; i < 2; i++) {
      const again = await seen.goto(adTag);
      expect(again?.status()).toBe(200);
      expect(again?.headers()['content-type']).toBe('image/png');
      expect((await again!.body()).equals(shown)).toBe(false);
    }
  } finally {
    await visitor.close();
  }

  // The owner's view: one impression (the one before the opt-out), and the address on the list.
  const after = await openProspectDrawer(page, ACME, name);
  await expect(impressionsCell(after, cadence)).toHaveText('1');
  await page.goto(`/settings/suppressions?client_id=${ACME}`);
  await page.getByRole('textbox', { name: 'Search addresses' }).fill(email);
  await expect(page.getByRole('cell', { name: email, exact: true })).toBeVisible();
  await shot(page, 'opt-out-list', { fullPage: true });

  // An import of the same person into another cadence: skipped and counted as suppressed.
  const again = await importCadence(page.request, ACME, `${cadence} again`, who);
  expect(again).toMatchObject({ suppressed_rows: 1 });
});
