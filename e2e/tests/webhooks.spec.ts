import { createHmac } from 'node:crypto';
import http from 'node:http';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, stretch } from './fixtures.ts';
import { expectSignedIn, registerViaApi, signInUI, unique } from './support.ts';
import { shot } from './shots.ts';

type Received = { headers: http.IncomingHttpHeaders; body: string };

/** A webhook receiver on loopback, in this spec's process (the server allows loopback in e2e). */
async function startReceiver() {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/rally-hooks`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed by the decoded secret. */
function signatureOk(secret: string, r: Received): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key)
    .update(`${String(r.headers['webhook-id'])}.${String(r.headers['webhook-timestamp'])}.${r.body}`)
    .digest('base64');
  return String(r.headers['webhook-signature'])
    .split(' ')
    .some((s) => s === `v1,${expected}`);
}

/**
 * Issue 16 in the browser: an owner adds a webhook endpoint pointing at a receiver on loopback, copies
 * the secret shown once, sends a test, sees the deliveries succeed in the log, and deletes it.
 */
test('an owner adds a webhook, sends a test and sees the delivery in the log', async ({ page }) => {
  test.setTimeout(90_000);
  const receiver = await startReceiver();
  try {
    const account = await registerViaApi(page.request, unique('hooks'));
    await page.context().clearCookies();
    await signInUI(page, account.email, account.password);
    await expectSignedIn(page, 'Eve Tester');
    const clientId = new URL(page.url()).searchParams.get('client_id')!;

    await page.goto(`/settings/connections?client_id=${clientId}`);
    await page.getByRole('link', { name: 'Manage webhooks' }).click();
    await expect(page).toHaveURL(new RegExp(`/settings/integrations/webhooks\\?client_id=${clientId}`));
    await expect(page.getByRole('heading', { name: 'Webhooks', level: 1 })).toBeVisible();
    await expect(page.getByText('No webhook endpoints yet')).toBeVisible();

    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const form = page.getByRole('form', { name: 'Add endpoint' });
    // Nothing chosen: the form says what is missing.
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    await expect(form.getByText('Enter the URL Rally should post to.')).toBeVisible();
    await expect(form.getByText('Choose at least one event.')).toBeVisible();
    await form.getByLabel('Endpoint URL').fill(receiver.url);
    await form.getByLabel('Description').fill('Our event bridge');
    // The events are chosen in the app's one multiselect; each option says what it sends.
    await form.getByRole('combobox', { name: 'Events' }).click();
    await expect(page.getByRole('option', { name: /Invoice.*An invoice was made/ })).toBeVisible();
    await page.getByRole('option', { name: /Ad click/ }).click();
    await page.getByRole('option', { name: /Invoice/ }).click();
    await shot(page, 'webhooks-events', { fullPage: true });
    await page.keyboard.press('Escape');
    await form.getByRole('button', { name: 'Add endpoint' }).click();

    await expect(page.getByText('Copy the signing secret now')).toBeVisible();
    const secret = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    await shot(page, 'webhooks-secret', { fullPage: true });
    const card = page.getByRole('region', { name: `Endpoint ${receiver.url}` });
    await expect(card.getByText(`Secret …${secret.slice(-4)}`, { exact: false })).toBeVisible();
    await expect(card.getByText('Nothing sent yet.')).toBeVisible();

    await card.getByRole('button', { name: 'Send test' }).click();
    await expect(card.getByText('2 test events are on their way.')).toBeVisible();
    const log = card.getByRole('table', { name: 'Delivery log' });
    await expect(log.getByRole('row', { name: /Ad click.*Delivered/ })).toBeVisible({
      timeout: stretch(30_000),
    });
    await expect(log.getByRole('row', { name: /Invoice.*Delivered/ })).toBeVisible({
      timeout: stretch(30_000),
    });
    await expect(log.getByRole('row')).toHaveCount(3); // header + 2 deliveries

    expect(receiver.received).toHaveLength(2);
    for (const r of receiver.received) expect(signatureOk(secret, r)).toBe(true);
    const types = receiver.received.map((r) => (JSON.parse(r.body) as { type: string }).type).sort();
    expect(types).toEqual(['click', 'invoice']);

    // The secret is not shown again after a reload; the endpoint and its log are.
    await page.reload();
    await expect(page.getByRole('textbox', { name: 'Signing secret' })).toHaveCount(0);
    await expect(log.getByRole('row')).toHaveCount(3);
    const axe = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
      .analyze();
    expect(axe.violations.map((v) => `${v.id}: ${v.nodes[0]?.target.join(' ')}`)).toEqual([]);
    await shot(page, 'webhooks', { fullPage: true });

    await card.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this endpoint?' });
    await dialog.getByRole('button', { name: 'Delete endpoint' }).click();
    await expect(page.getByText('No webhook endpoints yet')).toBeVisible();
  } finally {
    await receiver.close();
  }
});
