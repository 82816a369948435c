import { expect, test, stretch } from './fixtures.ts';
import { CLIENTS, api, signInTo } from './support.ts';
import type { Page } from '@playwright/test';
import { shot } from './shots.ts';

/**
 * Issue 38, "Visible and auditable: the prospect drawer, the feed and the engagement report show
 * what was not counted and why". Acme's demo e-mail cadence (the email-ads demo seed) has opens by
 * Apple's privacy prefetch and a crawler and clicks by a mail gateway, kept uncounted.
 */
const ACME = CLIENTS.acme;

type Entry = { cadence_name: string; uncounted?: { verdict: string; count: number }[] };

/**
 * A demo prospect of Acme with uncounted events on one cadence entry. Which prospects the seed gave
 * them to is random, so the list is read page by page.
 */
async function prospectWithUncounted(page: Page): Promise<{ id: string; cadence: string }> {
  let cursor: string | null = null;
  for (let n = 0; n < 20; n++) {
    const query = `/sc/prospects?page_size=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const list = await api(page.request, 'GET', query, undefined, ACME);
    expect(list.status()).toBe(200);
    const body = (await list.json()) as { items: { id: string }[]; next_cursor: string | null };
    for (const { id } of body.items) {
      const one = await api(page.request, 'GET', `/sc/prospects/${id}`, undefined, ACME);
      const entry = ((await one.json()) as { cadences: Entry[] }).cadences.find(
        (c) => (c.uncounted?.length ?? 0) >= 1,
      );
      if (entry) return { id, cadence: entry.cadence_name };
    }
    cursor = body.next_cursor;
    if (!cursor) break;
  }
  throw new Error('no demo prospect of Acme has uncounted events');
}

test.describe.configure({ timeout: stretch(90_000) });

test('the drawer, the feed and the engagement report say what was not counted, and why', async ({ page }) => {
  await signInTo(page, `/feed?client_id=${ACME}`);
  // The feed: the last 7 days' engagement card.
  const feedNote = page.getByRole('region', { name: 'Not counted, last 7 days' });
  await expect(feedNote).toBeVisible({ timeout: stretch(20_000) });
  await expect(feedNote).toContainText(/opens? by Apple Mail Privacy Protection prefetch not counted/);
  await shot(
    feedNote.locator('xpath=ancestor::div[contains(@class,"mantine-SimpleGrid-root")][1]'),
    'uncounted-feed',
  );

  const { id, cadence } = await prospectWithUncounted(page);
  await page.goto(`/prospects?client_id=${ACME}&prospect=${id}`);
  const drawer = page.getByRole('dialog');
  const note = drawer.getByRole('region', { name: `Not counted, ${cadence}` });
  await expect(note).toBeVisible({ timeout: stretch(20_000) });
  await expect(note.getByRole('listitem').first()).toContainText(/ by .* not counted$/);
  await shot(drawer, 'uncounted-drawer');

  await page.goto(`/reports?client_id=${ACME}`);
  const report = page.getByRole('region', { name: 'Not counted in the engagement report' });
  await expect(report).toBeVisible({ timeout: stretch(20_000) });
  await expect(report).toContainText('by a mail security scanner not counted');
  await expect(report).toContainText('by Apple Mail Privacy Protection prefetch not counted');
  await shot(
    report.locator('xpath=ancestor::div[contains(@class,"mantine-Paper-root")][1]'),
    'uncounted-report',
  );
});
