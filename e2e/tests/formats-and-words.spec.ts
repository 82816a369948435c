import { expect, test } from './fixtures.ts';
import { CLIENTS, SAM, signInTo } from './support.ts';
import { shot } from './shots.ts';

/**
 * Issue 42 item 8, formats and words, read as a person would at desktop and phone width: a shared
 * value report's multiples abbreviated like every number ("11.1K×", not "11116.6×") under plain labels;
 * dates in the reader's locale (Chromium here: en-US, "Nov 7, 2026"); no internal names (calendar_url,
 * content.write); a switch labelled for what it does, its state said beside it; "Superprospects
 * expected". Screenshots go to E2E_SHOTS_DIR when it is set.
 */
const US_DAY = /[A-Z][a-z]{2} \d{1,2}, \d{4}/;
const OTHER_DAY = /\b\d{1,2} [A-Z][a-z]{2} \d{4}\b|\b\d{4}-\d{2}-\d{2}\b|\b\d{2}\/\d{2}\/\d{4}\b/;

for (const [label, viewport] of [
  ['desktop', { width: 1280, height: 800 }],
  ['phone', { width: 390, height: 844 }],
] as const) {
  test.describe(`formats and words, ${label} (issue 42 item 8)`, () => {
    test.use({ viewport });

    test('a shared value report reads its multiples abbreviated, under plain labels', async ({
      page,
      browser,
    }) => {
      await signInTo(page, `/reports?client_id=${CLIENTS.acme}&tab=shared`);
      const form = page.getByRole('form', { name: 'New shared link' });
      await form.getByLabel('Name').fill(`Value ${label} ${Date.now()}`);
      await form.getByRole('combobox', { name: 'Report' }).click();
      await page.getByRole('option', { name: 'Value report' }).click();
      await form.getByRole('button', { name: 'Create link' }).click();
      const link = await page.getByRole('textbox', { name: 'Link', exact: true }).inputValue();
      const guest = await browser.newContext({ viewport });
      const viewer = await guest.newPage();
      await viewer.goto(link);
      const card = viewer.getByText('Pipeline as a multiple of spend').locator('xpath=..');
      await expect(card).toBeVisible();
      await expect(card).toContainText(/^\D*(—|\d{1,3}(\.\d)?(K|MM|B)?×)/);
      await expect(viewer.getByText(/\d{4,}(\.\d)?×/)).toHaveCount(0);
      await expect(viewer.getByText(/per unit spent/i)).toHaveCount(0);
      await shot(viewer, `shared-value-report-${label}`);
      await guest.close();
    });

    test('dates in one format, switches and fields in plain words', async ({ page }) => {
      await signInTo(page, `/reports?client_id=${CLIENTS.agency}&tab=opportunities`);
      const table = page.getByRole('table', { name: 'Opportunities' });
      if (label === 'phone') {
        // On a phone a table opens on its key columns (issue 42 item 11): the dates are a tick away.
        await expect(table.getByRole('row').nth(1)).toBeVisible();
        await page.getByRole('button', { name: 'Columns' }).first().click();
        await page.getByRole('checkbox', { name: 'Created' }).check();
        await page.keyboard.press('Escape');
      }
      await expect(table.getByText(US_DAY).first()).toBeVisible();
      await expect(table.getByText(OTHER_DAY)).toHaveCount(0);
      await shot(page, `dates-opportunities-${label}`);

      await page.goto(`/cadence?client_id=${CLIENTS.acme}`);
      await page.getByRole('table').getByRole('link').first().click();
      const ads = page.getByRole('switch', { name: 'Show ads' });
      await expect(ads).toBeVisible();
      const on = await ads.isChecked();
      await expect(
        page.getByText(
          on ? "Prospects on this cadence see its days' content" : 'No ads are shown for this cadence',
        ),
      ).toBeVisible();
      await shot(page, `cadence-show-ads-${label}`);

      await page.goto(`/landing-pages/6f1c2a8e-4b1d-4c3a-9e51-0a7d2c100101?client_id=${CLIENTS.agency}`);
      await expect(page.getByRole('combobox', { name: 'Button links to' })).toHaveValue(
        "The sales rep's calendar link",
      );
      await expect(page.getByText('Trigger field')).toHaveCount(0);
      await expect(page.locator('input:not([type="hidden"])[value="calendar_url"]')).toHaveCount(0);

      await page.goto(`/settings/billing?client_id=${CLIENTS.acme}`);
      await expect(page.getByRole('region', { name: 'Usage' })).toContainText('Superprospects expected');
      await expect(page.getByText(/Estimated supers/i)).toHaveCount(0);
    });

    test('a role that cannot change ads is told so in words, not a permission code', async ({ page }) => {
      await signInTo(page, `/content?client_id=${CLIENTS.acme}`, SAM);
      const note = page.getByRole('note');
      await expect(note).toContainText('your role does not have permission to change ads and landing pages');
      await expect(note).not.toContainText('content.write');
      await shot(page, `content-read-only-${label}`);
    });
  });
}
