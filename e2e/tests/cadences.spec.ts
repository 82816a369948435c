import { expect, test, stretch } from './fixtures.ts';
import {
  CLIENTS,
  SAM,
  api,
  expectSignedIn,
  pngOf,
  registerViaApi,
  signInAs,
  signInTo,
  signInUI,
  unique,
} from './support.ts';
import type { APIRequestContext, Page } from '@playwright/test';
import { shot } from './shots.ts';

/**
 * Issue 7, cadences and sales reps in the browser: SPEC.md §2 "/cadence and /cadence/{id} | Cadence
 * list and one cadence", §7 "PUT /cadence/{id}", "PUT /cadence/{id}/change_status", and
 * "/client-settings | Children: … sales-reps". The demo seed gives Northwind two file-imported
 * cadences with five days each and four reps.
 */

const CADENCE = 'Webinar Follow-up';

/** A published content item of Northwind to put on a day (the content studio's own API). */
async function publishedContent(request: APIRequestContext, name: string) {
  const res = await api(
    request,
    'POST',
    '/v1/rest/content',
    {
      name,
      status: 'published',
      title: 'Ship on time, every time',
      image_text: 'See how Acme cuts delays',
      landing_page_url: 'https://www.example.com/webinar',
    },
    CLIENTS.agency,
  );
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as { id: string };
}

type CadenceReply = {
  id: number;
  integration_id: number;
  name: string;
  selected_sdrs: string[];
  days: { day_number: number; content_days: unknown[] }[];
};

/** Northwind's cadence of that name, with its days, read through the API. */
async function cadenceByName(request: APIRequestContext, name: string): Promise<CadenceReply> {
  const list = (await (
    await api(request, 'GET', '/sc/cadence', undefined, CLIENTS.agency)
  ).json()) as CadenceReply[];
  const found = list.find((c) => c.name === name);
  expect(found, name).toBeTruthy();
  const res = await api(
    request,
    'GET',
    `/sc/cadence/${found!.id}?integration_id=${found!.integration_id}`,
    undefined,
    CLIENTS.agency,
  );
  return (await res.json()) as CadenceReply;
}

/** The owner's walk through one cadence screen; the test around it restores the cadence. */
async function ownerWalk(page: Page, contentName: string) {
  await page.goto(`/cadence?client_id=${CLIENTS.agency}`);
  const table = page.getByRole('table', { name: 'Cadences' });
  const row = table.getByRole('row').filter({ hasText: CADENCE });
  await expect(row).toBeVisible();
  await expect(row.getByRole('img', { name: 'File import logo' })).toBeVisible();
  await expect(row.getByText('Active', { exact: true })).toBeVisible();
  await shot(page, 'cadences-list', { fullPage: true });

  await row.getByRole('link', { name: CADENCE }).click();
  await expect(page).toHaveURL(/\/cadence\/\d+\?client_id=.*&integration_id=\d+/);
  await expect(page.getByRole('heading', { level: 1, name: CADENCE })).toBeVisible();
  const day1 = page.getByRole('region', { name: 'Day 1' });
  await expect(day1.getByLabel('Day 1 counts')).toContainText('Total');

  // Ads on (is_super) is saved at once.
  const ads = page.getByRole('switch', { name: 'Show ads' });
  if (await ads.isChecked()) {
    await ads.uncheck();
    await expect(ads).not.toBeChecked();
    await expect(ads).toBeEnabled();
  }
  await ads.check();
  await expect(ads).toBeChecked();
  await expect(ads).toBeEnabled();

  // draft → active ⇄ paused: pause, then resume.
  await page.getByRole('button', { name: 'Pause' }).click();
  await expect(page.getByLabel('Status: Paused')).toBeVisible();
  await page.getByRole('button', { name: 'Resume' }).click();
  await expect(page.getByLabel('Status: Active')).toBeVisible();

  // Day 1: our content, with a rule "when clicks ≥ 2 → move to day 3".
  const existing = day1.getByRole('button', { name: /^Remove Day 1, content/ });
  while ((await existing.count()) > 0) await existing.first().click();
  await day1.getByRole('button', { name: 'Add content to Day 1' }).click();
  await day1.getByLabel('Day 1, content 1: content').click();
  await page.getByRole('option', { name: contentName }).click();
  await day1.getByRole('button', { name: 'Add rule to Day 1, content 1' }).click();
  const rule = day1.getByRole('group', { name: 'Rule 1 of Day 1, content 1' });
  await rule.getByLabel('Rule 1: when').click();
  await page.getByRole('option', { name: 'clicks ≥' }).click();
  await rule.getByLabel('Rule 1: value').fill('2');
  await rule.getByLabel('Rule 1: then').click();
  await page.getByRole('option', { name: 'Move to day 3' }).click();

  // selected_sdrs: two of the reps with prospects here.
  const reps = page.getByRole('region', { name: 'Sales reps' });
  await reps.getByRole('combobox', { name: 'Sales reps' }).click();
  await page.getByRole('option', { name: /Maya Lindgren/ }).click();
  await page.getByRole('option', { name: /Theo Baptiste/ }).click();
  await page.keyboard.press('Escape');
  await shot(page, 'cadence-editing', { fullPage: true });

  const bar = page.getByRole('region', { name: 'Unsaved changes' });
  await bar.getByRole('button', { name: 'Save changes' }).click();
  await expect(bar).toHaveCount(0);

  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: CADENCE })).toBeVisible({
    timeout: stretch(15_000),
  });
  await expect(page.getByRole('switch', { name: 'Show ads' })).toBeChecked();
  await expect(page.getByLabel('Status: Active')).toBeVisible();
  const day1Again = page.getByRole('region', { name: 'Day 1' });
  await expect(day1Again.getByLabel('Day 1, content 1: content')).toHaveValue(contentName);
  const ruleAgain = day1Again.getByRole('group', { name: 'Rule 1 of Day 1, content 1' });
  await expect(ruleAgain.getByLabel('Rule 1: when')).toHaveValue('clicks ≥');
  await expect(ruleAgain.getByLabel('Rule 1: value')).toHaveValue('2');
  await expect(ruleAgain.getByLabel('Rule 1: then')).toHaveValue('Move to day 3');
  const repsAgain = page.getByRole('region', { name: 'Sales reps' });
  await expect(repsAgain.getByText('Maya Lindgren')).toBeVisible();
  await expect(repsAgain.getByText('Theo Baptiste')).toBeVisible();
  await expect(repsAgain.getByText('Priya Natarajan')).toHaveCount(0);
  await shot(page, 'cadence-saved', { fullPage: true });

  // And the list shows ads on and the two reps.
  await page.getByRole('link', { name: 'Cadences' }).first().click();
  const listRow = page.getByRole('table', { name: 'Cadences' }).getByRole('row').filter({ hasText: CADENCE });
  await expect(listRow.getByText('Ads on')).toBeVisible();
  await expect(listRow.getByLabel('2 sales reps')).toBeVisible();
}

test.describe('cadences (issue 7)', () => {
  test('an owner switches ads on, pauses and resumes, adds a rule on day 1, picks reps, saves; a reload shows it all', async ({
    page,
  }) => {
    // A long walk through one screen; on a loaded machine each step can take a second or two.
    test.setTimeout(120_000);
    await signInAs(page);
    const contentName = `Webinar ad ${Date.now()}`;
    await publishedContent(page.request, contentName);
    // Other suites serve this cadence's ads: its reps and day content are put back afterwards.
    const before = await cadenceByName(page.request, CADENCE);
    try {
      await ownerWalk(page, contentName);
    } finally {
      const res = await api(
        page.request,
        'PUT',
        `/sc/cadence/${before.id}?integration_id=${before.integration_id}`,
        {
          selected_sdrs: before.selected_sdrs,
          days: before.days.map((d) => ({ day_number: d.day_number, content_days: d.content_days })),
        },
        CLIENTS.agency,
      );
      expect(res.status(), await res.text()).toBe(200);
    }
  });

  test('an SDR (Sam at Acme) sees cadences read-only: no toggles, no status moves, no editors', async ({
    page,
  }) => {
    await signInTo(page, `/cadence?client_id=${CLIENTS.acme}`, SAM);
    const table = page.getByRole('table', { name: 'Cadences' });
    await expect(table.getByRole('link', { name: CADENCE })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Sync now' })).toHaveCount(0);
    await table.getByRole('link', { name: CADENCE }).click();
    await expect(page.getByRole('heading', { level: 1, name: CADENCE })).toBeVisible();
    await expect(page.getByRole('region', { name: 'Day 1' })).toBeVisible();
    await expect(page.getByText(/^Ads (on|off)$/)).toBeVisible();
    await expect(page.getByRole('switch')).toHaveCount(0);
    for (const name of ['Pause', 'Resume', 'Activate', 'Finish', 'Sync now', 'Add content to Day 1'])
      await expect(page.getByRole('button', { name })).toHaveCount(0);
    await expect(page.getByRole('combobox', { name: 'Sales reps' })).toHaveCount(0);
    await shot(page, 'cadence-read-only', { fullPage: true });
    // The server agrees: a write is refused.
    const id = new URL(page.url()).pathname.split('/').pop();
    const res = await api(page.request, 'PUT', `/sc/cadence/${id}`, { is_super: true }, CLIENTS.acme);
    expect(res.status()).toBe(403);
  });
});

test.describe('sales reps (issue 7)', () => {
  test("an owner edits a rep's title and calendar URL; the table and a reload show them", async ({
    page,
  }) => {
    await signInTo(page, `/client-settings/sales-reps?client_id=${CLIENTS.agency}`);
    const table = page.getByRole('table', { name: 'Sales reps' });
    const row = table.getByRole('row', { name: 'Owen Castillo' });
    await expect(row).toBeVisible();
    await expect(table.getByRole('columnheader', { name: 'Active targets' })).toBeVisible();
    await shot(page, 'sales-reps', { fullPage: true });

    const title = `Head of Partnerships ${Date.now() % 10_000}`;
    await row.getByRole('button', { name: 'Edit Owen Castillo' }).click();
    const drawer = page.getByRole('dialog', { name: 'Edit Owen Castillo' });
    await drawer.getByLabel('Title').fill(title);
    await drawer.getByLabel('Calendar URL').fill('not a link');
    await drawer.getByRole('button', { name: 'Save' }).click();
    await expect(drawer.getByText(/Enter a web address/)).toBeVisible();
    await drawer.getByLabel('Calendar URL').fill('https://cal.example.com/owen');
    await shot(page, 'sales-rep-drawer', { fullPage: true });
    await drawer.getByRole('button', { name: 'Save' }).click();
    await expect(drawer).toHaveCount(0);
    await expect(row.getByText(title)).toBeVisible();
    await expect(row.getByRole('link', { name: 'cal.example.com/owen' })).toHaveAttribute(
      'href',
      'https://cal.example.com/owen',
    );

    await page.reload();
    const again = page.getByRole('table', { name: 'Sales reps' }).getByRole('row', { name: 'Owen Castillo' });
    await expect(again.getByText(title)).toBeVisible();
    await expect(again.getByRole('link', { name: 'cal.example.com/owen' })).toBeVisible();
  });

  test('a photo uploaded for a rep shows in the table, which lists reps with photos first (SPEC.md §5)', async ({
    page,
  }) => {
    // Acme: the other test edits Northwind's reps.
    await signInTo(page, `/client-settings/sales-reps?client_id=${CLIENTS.acme}`);
    const table = page.getByRole('table', { name: 'Sales reps' });
    await table.getByRole('button', { name: 'Edit Theo Baptiste' }).click();
    const drawer = page.getByRole('dialog', { name: 'Edit Theo Baptiste' });
    const chooser = page.waitForEvent('filechooser');
    await drawer.getByRole('button', { name: 'Upload photo' }).click();
    await (
      await chooser
    ).setFiles({ name: 'theo.png', mimeType: 'image/png', buffer: pngOf(96, 96, [40, 120, 200]) });
    await expect(drawer.getByRole('img', { name: 'Photo of Theo Baptiste' })).toHaveAttribute(
      'src',
      /^\/files\//,
    );
    await drawer.getByRole('button', { name: 'Save' }).click();
    await expect(drawer).toHaveCount(0);
    await expect(table.getByRole('img', { name: 'Photo of Theo Baptiste' })).toHaveAttribute(
      'src',
      /^\/files\//,
    );
    // Photos first, then by first name: Theo (the only photo) leads.
    await page.reload();
    const rows = page.getByRole('table', { name: 'Sales reps' }).getByRole('row');
    await expect(rows.nth(1)).toHaveAccessibleName('Theo Baptiste');
    await expect(rows.nth(2)).toHaveAccessibleName('Maya Lindgren');
    await shot(page, 'sales-reps-photo', { fullPage: true });
  });
});

test.describe('sync a cadence (issue 7)', () => {
  test("'Sync now' on a Salesloft cadence shows the sync, then the new last-synced time", async ({
    page,
  }) => {
    test.setTimeout(120_000);
    const account = await registerViaApi(page.request, unique('cadence-sync'));
    await page.context().clearCookies();
    await signInUI(page, account.email, account.password);
    await expectSignedIn(page, 'Eve Tester');
    await expect(page).toHaveURL(/\/onboarding\?client_id=[0-9a-f-]{36}$/);
    const clientId = new URL(page.url()).searchParams.get('client_id')!;
    // Connect the Salesloft fake (started by the global setup) through its OAuth consent.
    const start = await api(
      page.request,
      'POST',
      `/v1/integration/sequence/salesloft/client/${clientId}/connect`,
      { return_to: 'connections' },
      clientId,
    );
    expect(start.status(), await start.text()).toBe(200);
    await page.goto(((await start.json()) as { redirect_url: string }).redirect_url);
    await expect(page).toHaveURL(/\/settings\/connections\?client_id=.*&connected=salesloft/);

    // This test is about 'Sync now': it starts once the first sync of the connection has ended (the
    // list does not yet follow a first sync by itself; a reload shows it).
    await expect
      .poll(
        async () => {
          const res = await api(
            page.request,
            'GET',
            `/v1/rest/client/${clientId}/integrations`,
            undefined,
            clientId,
          );
          const list = (await res.json()) as {
            source: string;
            is_syncing: boolean;
            last_synced_at: string | null;
          }[];
          const salesloft = list.find((i) => i.source === 'salesloft');
          return Boolean(salesloft && !salesloft.is_syncing && salesloft.last_synced_at);
        },
        { timeout: stretch(60_000) },
      )
      .toBe(true);
    await page.goto(`/cadence?client_id=${clientId}`);
    const table = page.getByRole('table', { name: 'Cadences' });
    const row = table
      .getByRole('row')
      .filter({ has: page.getByRole('img', { name: 'Salesloft logo' }) })
      .first();
    await expect(row.getByText(/^Synced /)).toBeVisible({ timeout: stretch(30_000) });
    const synced = page.waitForResponse(
      (r) => r.url().includes('/sc/action/sync/cadence/') && r.status() === 202,
    );
    await row.getByRole('button', { name: 'Sync now' }).click();
    await synced;
    await expect(row.getByText('Synced just now')).toBeVisible({ timeout: stretch(30_000) });
    await expect(row.getByRole('button', { name: 'Sync now' })).toBeEnabled();

    // The cadence screen has the same control.
    const link = row.getByRole('link').first();
    const name = (await link.textContent()) ?? '';
    await link.click();
    await expect(page).toHaveURL(/\/cadence\/\d+\?/);
    await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
    await page.getByRole('button', { name: 'Sync now' }).click();
    await expect(page.getByText('Synced just now')).toBeVisible({ timeout: stretch(30_000) });
    await shot(page, 'cadence-salesloft', { fullPage: true });
  });
});
