import AxeBuilder from '@axe-core/playwright';
import { expect, test } from './fixtures.ts';
import { CLIENTS, signInTo, unique } from './support.ts';
import { shot } from './shots.ts';

/**
 * Issue 44: Settings › Suppression list as an owner works it, at desktop and phone width: add an
 * address, find it, take it off with a reason and find it among the removals. Screenshots go to
 * E2E_SHOTS_DIR when it is set.
 */
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

for (const [label, viewport] of [
  ['desktop', { width: 1280, height: 800 }],
  ['phone', { width: 390, height: 844 }],
] as const) {
  test.describe(`the suppression list, ${label} (issue 44)`, () => {
    test.use({ viewport });
    test.slow();

    test('an owner adds an address, removes it with a reason and finds it in the removals', async ({
      page,
    }) => {
      await signInTo(page, `/settings/suppressions?client_id=${CLIENTS.acme}`);
      await expect(page.getByRole('heading', { level: 1, name: 'Suppression list' })).toBeVisible();
      const email = unique(`optout-${label}`);
      await page.getByRole('textbox', { name: 'E-mail address' }).fill(email);
      await page.getByRole('textbox', { name: 'Reason (optional)' }).fill('Asked by phone');
      await page.getByRole('button', { name: 'Add to the list' }).click();
      await expect(page.getByText(`${email} is on the list`)).toBeVisible();
      await expect(page.getByRole('cell', { name: email, exact: true })).toBeVisible();
      await shot(page, `suppression-list-${label}`, { fullPage: true });

      const axe = await new AxeBuilder({ page }).include('main').withTags(TAGS).analyze();
      expect(
        axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      ).toEqual([]);

      await page.getByRole('textbox', { name: 'Search addresses' }).fill(email);
      await page.getByRole('button', { name: `Remove ${email} from the list` }).click();
      const dialog = page.getByRole('dialog', { name: 'Take this person off the list?' });
      await dialog.getByRole('textbox', { name: /Reason/ }).fill('Added by mistake');
      await dialog.getByRole('button', { name: 'Remove from the list' }).click();
      await expect(page.getByText('No address matches your search')).toBeVisible();
      await page.getByText('Removed', { exact: true }).click();
      await expect(page.getByRole('cell', { name: email, exact: true })).toBeVisible();
      await expect(page.getByText('Added by mistake')).toBeVisible();
    });
  });
}
