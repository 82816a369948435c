import { expect, test, stretch } from './fixtures.ts';
import { SAM, expectSignedIn, registerViaApi, signInUI, unique } from './support.ts';
import type { Page } from '@playwright/test';
import { shot } from './shots.ts';

/**
 * Issue 6 in the browser: a new client connects a sequence platform (the Salesloft fake on loopback,
 * started by the global setup) or uploads a CSV file, chooses its reps, watches the first sync, and
 * manages the connection in Settings › Connections.
 */

async function newOwner(page: Page) {
  const account = await registerViaApi(page.request, unique('onboard'));
  await page.context().clearCookies();
  await signInUI(page, account.email, account.password);
  await expectSignedIn(page, 'Eve Tester');
  // No integration yet: the has-integration check sends every app route here.
  await expect(page).toHaveURL(/\/onboarding\?client_id=[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { name: 'Set up Tester Co' })).toBeVisible();
  return new URL(page.url()).searchParams.get('client_id')!;
}

test.describe('onboarding and connections (issue 6)', () => {
  test('connect Salesloft through OAuth, choose reps, watch the first sync, land on the feed', async ({
    page,
  }) => {
    const clientId = await newOwner(page);
    await page.getByRole('button', { name: 'Connect Salesloft' }).click();
    await page.getByRole('button', { name: 'Continue to Salesloft' }).click();
    // The vendor's consent page approves and sends the browser back through our callback.
    await expect(page).toHaveURL(new RegExp(`/onboarding\\?client_id=${clientId}&connected=salesloft`));
    const reps = page.getByRole('table', { name: 'Sales reps' });
    await expect(reps.getByRole('checkbox').nth(1)).toBeVisible({ timeout: stretch(20_000) });
    const boxes = reps.getByRole('row').filter({ has: page.getByRole('checkbox') });
    const count = (await boxes.count()) - 1; // minus the header row
    expect(count).toBeGreaterThanOrEqual(3);
    await expect(page.getByText(`${count} of ${count} selected`)).toBeVisible();
    await reps.getByRole('checkbox').nth(1).uncheck();
    await expect(page.getByText(`${count - 1} of ${count} selected`)).toBeVisible();
    await shot(page, 'onboarding-reps', { fullPage: true });
    await page.getByRole('button', { name: 'Continue', exact: true }).click();
    await expect(page.getByRole('heading', { name: 'You are all set' })).toBeVisible({
      timeout: stretch(30_000),
    });
    await page.getByRole('button', { name: 'Go to the feed' }).click();
    await expect(page).toHaveURL(new RegExp(`/feed\\?client_id=${clientId}$`));

    // Settings › Connections shows the connection, syncs it on demand, and disconnects it.
    await page.goto(`/settings/connections?client_id=${clientId}`);
    const card = page.getByRole('region', { name: 'Salesloft connection' });
    await expect(card.getByText('Active', { exact: true })).toBeVisible();
    await expect(card.getByText(/Last synced/)).toBeVisible();
    await expect(card.getByRole('img', { name: 'Salesloft logo' })).toBeVisible();
    await shot(page, 'connections', { fullPage: true });
    await card.getByRole('button', { name: 'Sync now' }).click();
    await expect(card.getByText(/Last synced/)).toBeVisible({ timeout: stretch(30_000) });
    await card.getByRole('button', { name: 'Disconnect' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Disconnect' }).click();
    await expect(card.getByText('Inactive', { exact: true })).toBeVisible();
    await expect(card.getByText('Disconnected. Connect again to resume syncing.')).toBeVisible();
    await expect(card.getByRole('button', { name: 'Reconnect' })).toBeVisible();
  });

  test('upload a CSV: columns matched, a check names each bad row, good rows imported once', async ({
    page,
  }) => {
    const clientId = await newOwner(page);
    await page.getByRole('button', { name: 'Upload a CSV file' }).click();
    const csv = [
      'Email Address,First Name,Last Name,Company,Cadence,Day,Rep Email',
      'ada@example.com,Ada,Lovelace,Analytical,Q4 outbound,1,sam.rep@example.com',
      'grace@example.com,Grace,Hopper,Navy,Q4 outbound,2,sam.rep@example.com',
      'not-an-email,Bad,Row,Nowhere,Q4 outbound,1,sam.rep@example.com',
      'alan@example.com,Alan,Turing,Bletchley,Q4 outbound,0,sam.rep@example.com',
    ].join('\n');
    const chooser = page.waitForEvent('filechooser');
    await page.getByLabel('CSV file').click();
    await (await chooser).setFiles({ name: 'prospects.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    const mapping = page.getByRole('table', { name: 'Column mapping' });
    await expect(mapping).toBeVisible();
    await expect(page.getByRole('combobox', { name: 'Column for E-mail address' })).toHaveValue(
      'Email Address',
    );
    await expect(page.getByRole('combobox', { name: 'Column for Cadence name' })).toHaveValue('Cadence');
    await page.getByRole('button', { name: 'Check the file' }).click();
    const report = page.getByRole('region', { name: 'Check report' });
    await expect(report.getByText('With problems', { exact: true })).toBeVisible();
    await expect(report).toContainText('Rows4Ready to import2With problems2');
    const problems = report.getByRole('table', { name: 'Rows with problems' });
    await expect(
      problems.getByRole('row', { name: /3 E-mail address is not a valid e-mail address/ }),
    ).toBeVisible();
    await expect(
      problems.getByRole('row', { name: /4 Cadence day must be a whole number of at least 1/ }),
    ).toBeVisible();
    await shot(page, 'onboarding-mapping', { fullPage: true });
    await page.getByRole('button', { name: 'Import 2 rows' }).click();
    await expect(page.getByText('2 rows imported')).toBeVisible({ timeout: stretch(30_000) });
    await page.getByRole('button', { name: 'Continue', exact: true }).click();
    // The rep named in the file is there to choose.
    await expect(
      page.getByRole('table', { name: 'Sales reps' }).getByText('sam.rep@example.com'),
    ).toBeVisible();
    await page.getByRole('button', { name: 'Continue', exact: true }).click();
    await page.getByRole('button', { name: 'Go to the feed' }).click();
    await expect(page).toHaveURL(new RegExp(`/feed\\?client_id=${clientId}$`));

    await page.goto(`/settings/integrations/fileforce?client_id=${clientId}`);
    const imports = page.getByRole('table', { name: 'Imports' });
    await expect(imports.getByRole('row', { name: /prospects\.csv.*done\s*2\s*2/ })).toBeVisible();
  });

  test('an SDR cannot connect sources and is told whom to ask', async ({ page }) => {
    await signInUI(page, SAM.email, SAM.password);
    await expectSignedIn(page, SAM.name);
    await page.goto('/onboarding');
    await expect(page.getByText('Ask an owner to connect a source')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Connect Salesloft' })).toHaveCount(0);
  });
});
