import { expect, test, stretch } from './fixtures.ts';
import { CLIENTS, signInTo } from './support.ts';
import type { Page } from '@playwright/test';
import { shot } from './shots.ts';

/**
 * Issue 7 in the browser: "/prospects — a paged, sortable, searchable list (name, company, email,
 * title) with filters (cadence, sales rep, super, active) and a detail drawer with each cadence
 * entry", and "/feed — the activity feed ... headline cards; relative times updating every 30 s;
 * live updates pushed to open pages". Northwind's prospects come from the demo CSV
 * (apps/server/src/db/demo/prospects.csv), its engagement from the demo seed.
 */

const NORTHWIND = CLIENTS.agency;

test.describe.configure({ timeout: stretch(90_000) });

const rows = (page: Page) => page.getByRole('table', { name: 'Prospects' }).locator('tbody tr');

test('prospects: search a name from the demo CSV, filter by cadence, sort, open the drawer', async ({
  page,
}) => {
  await signInTo(page, `/prospects?client_id=${NORTHWIND}`);
  await expect(page.getByRole('heading', { name: 'Prospects', level: 1 })).toBeVisible();
  await expect(rows(page).first()).toBeVisible({ timeout: stretch(20_000) });
  expect(await rows(page).count()).toBeGreaterThan(20);
  await shot(page, 'prospects-list', { fullPage: true });

  // Paging: 50 a page; the demo CSV has 60 people.
  await expect(rows(page)).toHaveCount(50);
  const firstOnPage1 = (await rows(page).first().textContent()) ?? '';
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByText('Page 2')).toBeVisible();
  await expect(rows(page).first()).not.toHaveText(firstOnPage1);
  expect(await rows(page).count()).toBeGreaterThanOrEqual(10);
  await page.getByRole('button', { name: 'Previous' }).click();
  await expect(page.getByText('Page 1')).toBeVisible();
  await expect(rows(page).first()).toHaveText(firstOnPage1);

  // Search (debounced): "Kendall Ellery, Procurement Lead, Brightline Freight" in the CSV.
  const search = page.getByRole('textbox', { name: 'Search prospects' });
  await search.fill('kendall');
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toContainText('Kendall Ellery');
  await expect(rows(page).first()).toContainText('Brightline Freight');
  await expect(page).toHaveURL(/[?&]q=kendall/);
  // By company, case-insensitive.
  await search.fill('BRIGHTLINE');
  await expect(rows(page)).toHaveCount(1);
  await search.fill('no such prospect anywhere');
  await expect(page.getByText('No prospects match')).toBeVisible();
  await shot(page, 'prospects-no-match');
  await page.getByRole('button', { name: 'Clear search and filters' }).click();
  await expect(search).toHaveValue('');
  await expect(rows(page).first()).toBeVisible();

  // Filter by cadence: every row is in it.
  await page.getByRole('combobox', { name: 'Cadence', exact: true }).click();
  await page.getByRole('option', { name: 'Webinar Follow-up' }).click();
  await expect(page).toHaveURL(/[?&]cadence_id=\d+/);
  await expect(rows(page).filter({ hasNotText: 'Webinar Follow-up' })).toHaveCount(0);
  // The CSV has 24 people in it (other tests may add a few).
  expect(await rows(page).count()).toBeGreaterThanOrEqual(24);

  // Sort by impressions, most first: the header says so and the column is in order.
  await page.getByRole('button', { name: 'Sort by impressions' }).click();
  await expect(page.getByRole('columnheader', { name: 'Sort by impressions' })).toHaveAttribute(
    'aria-sort',
    'descending',
  );
  // (The previous page stays on screen while the sorted one loads.)
  await expect
    .poll(async () => {
      const values = (await rows(page).locator('td:last-child').allInnerTexts()).map(Number);
      return values.length > 1 && values.every((v, i) => i === 0 || values[i - 1]! >= v) && values[0]! > 0;
    })
    .toBe(true);
  await shot(page, 'prospects-filtered-sorted', { fullPage: true });

  // The drawer: each cadence entry with assignee, engagements, impressions and super date.
  await page.goto(`/prospects?client_id=${NORTHWIND}`);
  await search.fill('kendall');
  await expect(rows(page)).toHaveCount(1);
  await page.getByRole('button', { name: 'Kendall Ellery' }).click();
  const drawer = page.getByRole('dialog', { name: 'Kendall Ellery' });
  await expect(drawer).toBeVisible();
  await expect(drawer).toContainText('Procurement Lead');
  await expect(drawer).toContainText('kendall.ellery@brightline-freight.example');
  const entries = drawer.getByRole('table', { name: 'Cadence entries' });
  await expect(entries).toContainText('Maya Lindgren');
  await expect(entries.getByRole('columnheader')).toHaveText([
    'Cadence',
    'Assignee',
    'Engagements',
    'Impressions',
    'Super date',
  ]);
  await shot(page, 'prospects-drawer');
  await page.keyboard.press('Escape');
  await expect(drawer).toBeHidden();
});

test('feed: headline cards, the activity list, and a new item pushed live without a reload', async ({
  page,
}) => {
  await signInTo(page, `/feed?client_id=${NORTHWIND}`);
  await expect(page.getByRole('heading', { name: 'Feed', level: 1 })).toBeVisible();
  await expect(page.getByText('New superprospects today')).toBeVisible();
  await expect(page.getByLabel('New superprospects today')).toHaveText(/^\d+$/);
  await expect(page.getByText('Engagement, last 7 days')).toBeVisible();
  await expect(page.getByText('Last engagement')).toBeVisible();
  await expect(page.getByText('Live', { exact: true })).toBeVisible();
  // The demo seed's engagement: superprospects and clicks with relative times.
  const activity = page.getByRole('list', { name: 'Activity' });
  await expect(activity.locator('li').first()).toBeVisible();
  await expect(activity).toContainText(/became a superprospect|clicked an ad/);
  await expect(activity.locator('li').first()).toContainText(/ago|just now/);
  await shot(page, 'feed', { fullPage: true });
  // Paged by page and page_size (SPEC.md §9): 20 at first, "Load more" for the rest.
  const first = (await (
    await page.request.get('/sc/dashboard/feed/data?page_size=20', { headers: { 'x-client-id': NORTHWIND } })
  ).json()) as { total: number };
  await expect(activity.locator('li')).toHaveCount(Math.min(20, first.total));
  if (first.total > 20) {
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect(activity.locator('li')).toHaveCount(Math.min(40, first.total));
  } else {
    await expect(page.getByRole('button', { name: 'Load more' })).toHaveCount(0);
  }

  // Imports: none yet (the seed's own import came before the feed).
  await page.getByText('Imports', { exact: true }).click();
  await expect(page.getByText('Nothing of this kind yet')).toBeVisible();

  // A file imported through the API: its item appears on this open page, no reload.
  await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
  const file = `e2e-feed-${Date.now()}.csv`;
  const csv = [
    'Email,First Name,Last Name,Title,Company,Website,Cadence,Day,Rep Email,Rep First Name,Rep Last Name,Rep Title',
    'robin.live@streamco.example,Robin,Live,CTO,Streamco,https://streamco.example,E2E live feed,1,maya.lindgren@acme-robotics.example,Maya,Lindgren,Senior SDR',
  ].join('\n');
  const csrf = (await page.request.get('/v1/api/auth/csrf')).headers()['x-xsrf-token'] ?? '';
  const headers = { 'x-xsrf-token': csrf, 'x-client-id': NORTHWIND };
  const imports = `/v1/integration/crm/fileforce/client/${NORTHWIND}/imports`;
  const up = await page.request.post(imports, {
    headers,
    multipart: { kind: 'targets', file: { name: file, mimeType: 'text/csv', buffer: Buffer.from(csv) } },
  });
  expect(up.status(), await up.text()).toBe(201);
  const { id } = (await up.json()) as { id: string };
  const start = await page.request.post(`${imports}/${id}/start`, { headers });
  expect(start.status(), await start.text()).toBe(202);

  const item = activity.locator('li', { hasText: `${file} imported` });
  await expect(item).toBeVisible({ timeout: stretch(20_000) });
  await expect(item).toContainText('1 row imported');
  await expect(item).toContainText('just now');
  expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
  await shot(page, 'feed-live-import', { fullPage: true });

  // And under All, at the top.
  await page.getByText('All', { exact: true }).click();
  await expect(activity.locator('li').first()).toContainText(`${file} imported`);
});

test('feed: the setup checklist names what blocks results and links to the screen that does it (issue 42 item 5)', async ({
  page,
}) => {
  // The demo's Acme reps have no photo yet (their ads show initials): a step of the checklist, not
  // one "Needs your attention" line per rep.
  await signInTo(page, `/feed?client_id=${CLIENTS.acme}`);
  const panel = page.getByRole('region', { name: 'Finish setting up' });
  await expect(panel).toBeVisible({ timeout: stretch(20_000) });
  await expect(panel.getByText(/\d+ of 6 done/)).toBeVisible();
  await expect(panel.getByText(/sales reps? (has|have) no photo: their ads show initials/)).toBeVisible();
  await expect(
    page.getByText(/has no photo: their prospects' ads and landing pages show initials/),
  ).toHaveCount(0);
  await shot(page, 'feed-setup-checklist', { fullPage: true });
  await panel.getByRole('link', { name: 'Add photos' }).click();
  await expect(page).toHaveURL(new RegExp(`/client-settings/sales-reps\\?client_id=${CLIENTS.acme}$`));
  await expect(page.getByRole('heading', { name: 'Sales reps', level: 1 })).toBeVisible();
});
