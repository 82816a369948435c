import { expect, test, stretch } from './fixtures.ts';
import { CLIENTS, signInAs } from './support.ts';

/** The demo marketing manager of Acme (apps/server/src/db/seed.ts). */
const MORGAN = { email: 'morgan@rally.test', password: 'rally-demo-2026', name: 'Morgan Lee' };

/**
 * Issue 18: a manager builds a cohort from the demo prospects with a filter, sees the estimate before
 * saving, and lands on the cohort page, which fills in as the sync runs; then pauses it with
 * confirmation and finds it archived only with "Show archived".
 */
test('a manager creates a cohort from the demo prospects with a filter, sees the estimate, opens it', async ({
  page,
}) => {
  test.setTimeout(90_000);
  await signInAs(page, MORGAN);
  await page.getByRole('navigation', { name: 'Main' }).first().getByRole('link', { name: 'Cohorts' }).click();
  await expect(page).toHaveURL(new RegExp(`/cohorts\\?client_id=${CLIENTS.acme}`));
  await expect(page.getByRole('heading', { name: 'Cohorts', level: 1 })).toBeVisible();
  // The demo cohorts are listed.
  await expect(
    page.getByRole('table', { name: 'Cohorts' }).getByRole('link', { name: 'Engaged prospects' }),
  ).toBeVisible();

  await page.getByRole('link', { name: 'New cohort' }).click();
  await expect(page.getByRole('heading', { name: 'New cohort', level: 1 })).toBeVisible();
  const estimate = page.getByTestId('cohort-estimate');
  await expect(estimate).toContainText(/\d+ contacts/);
  const everyone = Number((await estimate.textContent())?.match(/(\d+) contact/)?.[1]);

  const name = `Directors ${Date.now()}`;
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Title contains').fill('Director');
  // The estimate follows the filter before anything is saved.
  await expect
    .poll(async () => Number((await estimate.textContent())?.match(/(\d+) contact/)?.[1]))
    .toBeLessThan(everyone);
  const directors = Number((await estimate.textContent())?.match(/(\d+) contact/)?.[1]);
  expect(directors).toBeGreaterThan(0);

  await page.getByRole('button', { name: 'Create cohort' }).click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
  await expect(page.getByText(/title contains “Director”/)).toBeVisible();
  // The sync fills the members in without a reload.
  await expect(page.getByText(/^Synced /)).toBeVisible({ timeout: stretch(30_000) });
  const members = page.getByRole('table', { name: 'Members' });
  await expect(members.getByRole('row')).not.toHaveCount(0);
  await expect(members.getByRole('cell', { name: /Director/ }).first()).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Impact by date' })).toBeVisible();
  await expect(page.getByRole('table', { name: 'By title' })).toContainText('Director');

  // Pause, with confirmation.
  await page.getByRole('button', { name: `Pause ${name}` }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Pause' }).click();
  await expect(page.getByText('Status: Paused').or(page.getByLabel('Status: Paused'))).toBeVisible();
  await expect(page.getByRole('button', { name: `Resume ${name}` })).toBeVisible();

  // Archive, then it is gone from the list until "Show archived".
  await page.getByRole('button', { name: `Archive ${name}` }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Archive' }).click();
  await expect(page.getByText('This cohort is read-only')).toBeVisible();
  await page.getByRole('link', { name: '← Cohorts' }).click();
  const table = page.getByRole('table', { name: 'Cohorts' });
  await expect(table.getByRole('link', { name: 'Engaged prospects' })).toBeVisible();
  await expect(table.getByRole('link', { name })).toHaveCount(0);
  // The box follows the URL, a moment after the click: check() would read it too soon.
  await page.getByLabel('Show archived').click();
  await expect(page.getByLabel('Show archived')).toBeChecked();
  await expect(table.getByRole('link', { name })).toBeVisible();
  await expect(
    table.getByRole('row', { name: new RegExp(name) }).getByLabel('Status: Archived'),
  ).toBeVisible();
});
