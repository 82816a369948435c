import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { CLIENTS, api, signInTo } from './support.ts';
import { shot } from './shots.ts';

/**
 * Issue 42 item 14 (part): a new ad and a new landing page, made as a person would at desktop and
 * phone width, start in the client's brand colours (Acme's demo brand: #111827, #ffffff, #f97316),
 * not black and white, and a new page with its logo. Screenshots go to E2E_SHOTS_DIR when it is set.
 */
const axe = async (page: Page) =>
  (
    await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
  ).violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);

for (const [label, viewport] of [
  ['desktop', { width: 1280, height: 800 }],
  ['phone', { width: 390, height: 844 }],
] as const) {
  test.describe(`branded defaults, ${label} (issue 42 item 14)`, () => {
    test.use({ viewport });

    test('a new ad and a new landing page start in the brand colours and logo', async ({ page }) => {
      test.setTimeout(120_000);
      await signInTo(page, `/content?client_id=${CLIENTS.acme}`);
      const brand = (await (
        await api(page.request, 'GET', `/v1/rest/client/${CLIENTS.acme}/settings`, undefined, CLIENTS.acme)
      ).json()) as { colors: { background: string; text: string; accent: string }; logo_url: string };
      expect(brand.colors.background).not.toBe('#ffffff');

      await page.getByRole('button', { name: 'New ad' }).click();
      const dialog = page.getByRole('dialog', { name: 'New ad creative' });
      await dialog.getByLabel('Name').fill(`Branded ${label} ${Date.now() % 100_000}`);
      await dialog.getByRole('button', { name: 'Create and edit' }).click();
      await expect(page).toHaveURL(/\/content\/[0-9a-f-]{36}\?client_id=/);
      await expect(page.getByRole('textbox', { name: 'Background' })).toHaveValue(brand.colors.background);
      await expect(page.getByRole('textbox', { name: 'Accent' })).toHaveValue(brand.colors.accent);
      await shot(page, `branded-new-ad-${label}`);

      await page.goto(`/landing-pages?client_id=${CLIENTS.acme}`);
      await page.getByRole('button', { name: 'New landing page' }).click();
      const lp = page.getByRole('dialog', { name: 'New landing page' });
      await lp.getByLabel('Name').fill(`Branded page ${label} ${Date.now() % 100_000}`);
      await lp.getByRole('button', { name: 'Create and edit' }).click();
      await expect(page).toHaveURL(/\/landing-pages\/[0-9a-f-]{36}\?client_id=/);
      const id = new URL(page.url()).pathname.split('/').pop();
      const made = (await (
        await api(
          page.request,
          'GET',
          `/v1/rest/client/${CLIENTS.acme}/landing_page/${id}`,
          undefined,
          CLIENTS.acme,
        )
      ).json()) as { colors: { background: string }; logo_url: string };
      expect(made.colors.background).toBe(brand.colors.background);
      expect(made.logo_url).toBe(brand.logo_url);
      await shot(page, `branded-new-page-${label}`);
      expect(await axe(page)).toEqual([]);
    });
  });
}
