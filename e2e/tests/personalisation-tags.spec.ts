import { test, expect } from './fixtures.ts';
import { CLIENTS, api, importCadence, signInAs } from './support.ts';
import { shot } from './shots.ts';

/**
 * Issue 42 item 1: a person opens the seeded ad and sees its tag as words with a fallback, never
 * markup; the cadence page's e-mail ad (a render without a prospect) uses the fallback.
 */
const ACME = CLIENTS.acme;
const SHOTS = process.env.E2E_SHOTS_DIR;

test('the seeded ad shows its tag as {{Label | fallback}}, and a render without a prospect uses the fallback', async ({
  page,
}) => {
  await signInAs(page);
  const content = (await (await api(page.request, 'GET', '/sc/content', undefined, ACME)).json()) as {
    items: { id: string; name: string }[];
  };
  const ad = content.items.find((i) => i.name === 'Picks per hour')!;

  await page.goto(`/content/${ad.id}?client_id=${ACME}`);
  const imageText = page.getByRole('textbox', { name: 'Image text' });
  await expect(imageText).toHaveValue('{{Prospect company | Your warehouse}}, twice as fast');
  await expect(page.getByText(/without a prospect: “\s*Your warehouse, twice as fast”/)).toBeVisible();
  for (const box of await page.getByRole('textbox').all()) {
    expect(await box.inputValue()).not.toMatch(/<span|data-id/);
  }
  await shot(page, 'ad-editor', { fullPage: true });

  // The cadence page's e-mail ad: rendered for no one in particular.
  const stamp = Date.now().toString(36);
  const cadence = `E2E tags ${stamp}`;
  await importCadence(page.request, ACME, cadence, { first: 'Tia', last: 'Gsmith' });
  const list = (await (await api(page.request, 'GET', '/sc/cadence', undefined, ACME)).json()) as {
    id: number;
    name: string;
    integration_id: number;
  }[];
  const c = list.find((x) => x.name === cadence)!;
  const put = await api(
    page.request,
    'PUT',
    `/sc/cadence/${c.id}?integration_id=${c.integration_id}`,
    {
      is_super: true,
      days: [{ day_number: 1, content_days: [{ content_id: ad.id, day_transition_actions: [] }] }],
    },
    ACME,
  );
  expect(put.status(), await put.text()).toBe(200);
  await page.goto(`/cadence/${c.id}?client_id=${ACME}&integration_id=${c.integration_id}#email-ads`);
  const panel = page.getByRole('region', { name: 'Add ads to your e-mails' });
  await expect(panel.getByRole('img', { name: /e-mail ad/ })).toHaveJSProperty('naturalWidth', 1200);
  if (SHOTS) {
    await panel.scrollIntoViewIfNeeded();
    await shot(panel, 'cadence-email-ad');
  }
});
