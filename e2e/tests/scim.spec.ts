import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { CLIENTS, SAM, api, signInTo } from './support.ts';
import { shot } from './shots.ts';

/**
 * Issue 44: an owner makes a SCIM provisioning token in Settings › Domains, copies it from the one
 * place it is shown, the identity provider can use it, and the owner revokes it; an SDR is told who
 * sees the panel. At desktop and phone width, axe at 0 on the panel.
 */
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
async function expectNoAxeViolations(page: Page) {
  const result = await new AxeBuilder({ page })
    .include('section[aria-labelledby="scim-title"]')
    .withTags(TAGS)
    .analyze();
  expect(
    result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
  ).toEqual([]);
}

for (const [label, viewport] of [
  ['desktop', { width: 1280, height: 800 }],
  ['phone', { width: 390, height: 844 }],
] as const) {
  test.describe(`SCIM provisioning tokens, ${label} (issue 44)`, () => {
    test.use({ viewport });
    test.slow();

    test('an owner makes a token, sees it once, it works, and revokes it', async ({ page }) => {
      await signInTo(page, `/settings/domain?client_id=${CLIENTS.acme}`);
      const panel = page.getByRole('region', { name: 'User provisioning (SCIM)' });
      await expect(panel.getByText(/\/scim\/v2$/)).toBeVisible();
      const name = `Okta ${label} ${Date.now()}`;
      await panel.getByRole('textbox', { name: 'Token name' }).fill(name);
      await panel.getByRole('combobox', { name: /New members become/ }).selectOption({ label: 'SDR' });
      await panel.getByRole('button', { name: 'Make a provisioning token' }).click();
      await expect(panel.getByText('Copy the token now')).toBeVisible();
      const secret = (await panel.getByText(/^rally_scim_[\w-]{43}$/).textContent()) ?? '';
      expect(secret).toMatch(/^rally_scim_[\w-]{43}$/);
      const row = panel.getByRole('row').filter({ hasText: name });
      await expect(row.getByText('Last used never')).toBeVisible();
      await shot(page, `scim-${label}`, { fullPage: true });
      await expectNoAxeViolations(page);

      // The identity provider can use it.
      const config = await page.request.get('/scim/v2/ServiceProviderConfig', {
        headers: { authorization: `Bearer ${secret}` },
      });
      expect(config.status()).toBe(200);
      expect(config.headers()['content-type']).toMatch(/^application\/scim\+json/);

      await panel.getByRole('button', { name: 'I have copied it' }).click();
      await expect(panel.getByText(secret)).toHaveCount(0);
      await row.getByRole('button', { name: 'Revoke' }).click();
      const dialog = page.getByRole('dialog', { name: `Revoke “${name}”?` });
      await dialog.getByRole('button', { name: 'Revoke' }).click();
      await expect(row.getByText('Revoked')).toBeVisible();
      const refused = await page.request.get('/scim/v2/Users', {
        headers: { authorization: `Bearer ${secret}` },
      });
      expect(refused.status()).toBe(401);
    });

    test('an SDR is told who sees the provisioning settings', async ({ page }) => {
      await signInTo(page, `/settings/domain?client_id=${CLIENTS.acme}`, SAM);
      const panel = page.getByRole('region', { name: 'User provisioning (SCIM)' });
      await expect(
        panel.getByText('Only owners and admins of this client see the provisioning settings.'),
      ).toBeVisible();
      const res = await api(
        page.request,
        'GET',
        `/v1/rest/client/${CLIENTS.acme}/scim-tokens`,
        undefined,
        CLIENTS.acme,
      );
      expect(res.status()).toBe(403);
    });
  });
}
