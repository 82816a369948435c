import AxeBuilder from '@axe-core/playwright';
import { expect, test } from './fixtures.ts';
import { CLIENTS, SAM, signInTo } from './support.ts';
import { shot } from './shots.ts';

/**
 * Issue 44: Settings › Audit log as an owner meets it (their own sign-in is on it, the chain checks
 * out, filters narrow it, the CSV downloads), at desktop and phone widths; an SDR does not see it.
 */
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

for (const [label, viewport] of [
  ['desktop', { width: 1280, height: 800 }],
  ['phone', { width: 390, height: 844 }],
] as const) {
  test.describe(`the audit log, ${label} (issue 44)`, () => {
    test.use({ viewport });
    test.slow();

    test('an owner reads their sign-in, filters, exports, and the chain verifies', async ({ page }) => {
      await signInTo(page, `/settings/audit-log?client_id=${CLIENTS.acme}`);
      await expect(page.getByRole('heading', { level: 1, name: 'Audit log' })).toBeVisible();
      await expect(page.getByText('Chain verified')).toBeVisible();
      const entries =
        label === 'desktop'
          ? page.getByRole('table', { name: 'Audit log entries' })
          : page.getByRole('list', { name: 'Audit log entries' });
      await expect(entries.getByText('Signed in').first()).toBeVisible();
      await shot(page, `audit-log-${label}`, { fullPage: true });

      await page.getByLabel('Action').selectOption({ label: 'Signed in' });
      await expect(entries.getByText('Signed in').first()).toBeVisible();
      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Export CSV of the entries shown' }).click();
      expect((await download).suggestedFilename()).toMatch(/^audit-log-\d{4}-\d{2}-\d{2}\.csv$/);

      const axe = await new AxeBuilder({ page }).include('main').withTags(TAGS).analyze();
      expect(
        axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      ).toEqual([]);
    });
  });
}

test('an SDR is not offered the audit log', async ({ page }) => {
  await signInTo(page, `/settings/profile?client_id=${CLIENTS.acme}`, SAM);
  await expect(page.getByRole('navigation', { name: 'Settings' }).getByText('Profile')).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Settings' }).getByText('Audit log')).toHaveCount(0);
});
