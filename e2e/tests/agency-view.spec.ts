import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, test, stretch } from './fixtures.ts';
import { CLIENTS, api, signInTo } from './support.ts';
import { shot } from './shots.ts';

/**
 * Issue 42 item 13, clicked through as the demo agency owner at desktop and phone width: the Clients
 * page shows each client's numbers, health and what needs attention; the switcher searches; a new
 * client goes under the parent chosen; Clients stays in a client where the owner is a manager.
 * Screenshots go to E2E_SHOTS_DIR when it is set.
 */
const axe = async (page: Page) =>
  (
    await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
  ).violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);

for (const [label, viewport] of [
  ['desktop', { width: 1280, height: 800 }],
  ['phone', { width: 390, height: 844 }],
] as const) {
  test.describe(`agency view, ${label} (issue 42 item 13)`, () => {
    test.use({ viewport });

    test("the Clients page shows each client's numbers and what needs attention, and opens it", async ({
      page,
    }) => {
      await signInTo(page, `/clients?client_id=${CLIENTS.agency}`);
      const table = page.getByRole('table', { name: 'Your clients' });
      const acme = table.getByRole('row', { name: /^Acme Robotics/ });
      await expect(acme).toBeVisible();
      // The same count as the API's overview, which equals Revenue's summary (API tests).
      const overview = (await (await api(page.request, 'GET', '/v1/rest/client/overview')).json()) as {
        clients: { id: string; superprospects: number | null; health: string }[];
      };
      const row = overview.clients.find((c) => c.id === CLIENTS.acme)!;
      await expect(acme.getByRole('cell').nth(1)).toHaveText(String(row.superprospects));
      await expect(acme).toContainText(/Healthy|Needs attention|At risk/);
      await shot(page, `agency-clients-${label}`);
      expect(await axe(page)).toEqual([]);

      // Globex, where the owner is a manager: Clients stays in reach.
      await page.getByRole('button', { name: 'Switch to Globex Logistics' }).click();
      await expect(page).toHaveURL(new RegExp(`client_id=${CLIENTS.globex}`));
      if (label === 'phone') await page.getByRole('button', { name: 'Open navigation' }).click();
      await page.getByRole('link', { name: 'Clients' }).last().click();
      await expect(page.getByRole('heading', { name: 'Clients', level: 1 })).toBeVisible();
      await expect(page.getByRole('table', { name: 'Your clients' })).toBeVisible();
    });

    test('the client switcher finds a client by typing; a new client goes under the parent chosen', async ({
      page,
    }) => {
      await signInTo(page, `/clients?client_id=${CLIENTS.acme}`);
      await page
        .getByRole('button', { name: /switch client/i })
        .first()
        .click();
      const search = page.getByPlaceholder('Search clients');
      await search.fill('glob');
      await expect(page.getByRole('menuitem')).toHaveText(['Globex Logistics']);
      await shot(page, `agency-switcher-${label}`);
      await page.getByRole('menuitem', { name: 'Globex Logistics' }).click();
      await expect(page).toHaveURL(new RegExp(`/feed\\?client_id=${CLIENTS.globex}`));

      // From Acme, the parent offered is the agency, not Acme.
      await page.goto(`/clients?client_id=${CLIENTS.acme}`);
      const form = page.getByRole('region', { name: 'New client' });
      await expect(
        form
          .getByRole('textbox', { name: 'Create under', exact: true })
          .or(form.getByLabel('Create under', { exact: true }))
          .first(),
      ).toHaveValue('Northwind Agency');
      const name = `Initech ${label} ${Date.now() % 100_000}`;
      await form.getByLabel('Client name').fill(name);
      await form.getByRole('button', { name: 'Create client' }).click();
      await expect(
        page.getByText(`${name} was created under Northwind Agency. You are its owner.`),
      ).toBeVisible();
      const made = page
        .getByRole('table', { name: 'Your clients' })
        .getByRole('row', { name: new RegExp(`^${name}`) });
      // The overview is asked again after the creation (every client's numbers): slower under load.
      await expect(made).toContainText('Part of Northwind Agency', { timeout: stretch(30_000) });
    });
  });
}
