import { expect, test } from './fixtures.ts';
import { CLIENTS, DEMO, SAM, expectSignedIn, signInUI } from './support.ts';
import { shot } from './shots.ts';

/**
 * Issue 9: the billing screen as its users see it. The demo seed gives Northwind a local test card,
 * one paid and one open invoice and uncharged superprospects. Only Northwind's card is changed here.
 */
test.describe('/settings/billing', () => {
  test('an owner adds a test card, sees the balance (/100 as dollars) and an invoice, and opens the printable invoice', async ({
    page,
  }) => {
    await signInUI(page, DEMO.email, DEMO.password);
    await expectSignedIn(page, DEMO.name);
    // The cog leads an owner to billing.
    await page.getByRole('link', { name: 'Settings' }).click();
    await expect(page).toHaveURL(new RegExp(`/settings/billing\\?client_id=${CLIENTS.agency}`));
    await expect(page.getByRole('heading', { level: 1, name: 'Billing' })).toBeVisible();

    // "Balance: amount in cents (shown divided by 100)".
    const balance = page.getByTestId('balance-amount');
    await expect(balance).toHaveText(/^\$[\d,]+\.\d\d$/);
    const cents = Number((await balance.textContent())!.replace(/[$,.]/g, ''));
    expect(cents).toBeGreaterThan(0);
    expect(cents % 500).toBe(0);

    // Replace the card with a test card; a wrong number is refused first.
    await page.getByRole('button', { name: /Replace card|Add a card/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Card number').fill('4242 4242 4242 4241');
    await dialog.getByLabel('Expiry (MM/YY)').fill('12/30');
    await dialog.getByLabel('CVC').fill('123');
    await dialog.getByRole('button', { name: 'Save card' }).click();
    await expect(dialog.getByText('Enter a valid card number')).toBeVisible();
    await dialog.getByLabel('Card number').fill('5555 5555 5555 4444');
    await dialog.getByRole('button', { name: 'Save card' }).click();
    await expect(dialog).toHaveCount(0);
    await expect(page.getByTestId('card-on-file')).toContainText('Mastercard ending in 4444');
    await expect(page.getByTestId('card-on-file')).toContainText('Expires 12/2030');

    // Invoices: the paid one and the open one, with a printable page.
    const invoices = page.getByRole('region', { name: 'Invoices' });
    await expect(invoices.getByRole('row').filter({ hasText: 'Paid' })).toHaveCount(1);
    await expect(invoices.getByRole('row').filter({ hasText: 'Open' })).toHaveCount(1);
    await expect(invoices.getByRole('alert', { name: /Invoice R-\d+ is open/ })).toBeVisible();
    await expect(page.getByRole('region', { name: 'Usage' })).toContainText('Estimated charge');
    await shot(page, 'billing-owner', { fullPage: true });

    const paidRow = invoices.getByRole('row').filter({ hasText: 'Paid' });
    const number = (await paidRow.getByRole('link').textContent())!;
    await paidRow.getByRole('link').click();
    await expect(page).toHaveURL(/\/settings\/billing\/invoices\/[0-9a-f-]{36}\?client_id=/);
    await expect(page.getByRole('heading', { level: 1, name: `Invoice ${number}` })).toBeVisible();
    await expect(page.getByTestId('invoice-total')).toHaveText(/^Total \$[\d,]+\.00$/);
    await expect(page.getByRole('button', { name: 'Print' })).toBeVisible();
    await expect(page).toHaveTitle('Rally - Invoice');
    await shot(page, 'billing-invoice', { fullPage: true });
  });

  test('a yellow_sdr cannot open /settings/billing (error page) and the cog leads to /settings/connections', async ({
    page,
  }) => {
    await signInUI(page, SAM.email, SAM.password);
    await expectSignedIn(page, SAM.name);
    const cog = page.getByRole('link', { name: 'Settings' });
    await expect(cog).toHaveAttribute('href', `/settings/connections?client_id=${CLIENTS.acme}`);
    await cog.click();
    await expect(page).toHaveTitle('Rally - Connections');

    await page.goto(`/settings/billing?client_id=${CLIENTS.acme}`);
    await expect(page.getByRole('heading', { name: 'An error occurred' })).toBeVisible();
    await expect(page.locator('main')).toContainText('does not have permission to see billing');
    await expect(page.getByTestId('balance-amount')).toHaveCount(0);
  });
});
