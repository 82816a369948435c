import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from './fixtures.ts';
import { CLIENTS, signInTo } from './support.ts';
import { shot } from './shots.ts';

/**
 * Another tool's page that frames `src`: a real server on 127.0.0.1 (another origin than Rally's
 * localhost), so the browser applies Rally's frame headers as it would for any site.
 */
async function otherTool(src: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><title>Wiki</title><h1>Team wiki</h1><iframe title="Rally report" src="${src}" width="1100" height="700"></iframe>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/wiki`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Issue 17, embedded reports: the owner saves a report as a link on /reports, the link opens in a
 * fresh browser without a session (and inside another site's frame) and shows the demo numbers;
 * once revoked it shows an error page.
 */
test('the owner shares a report as a link, others open and embed it, then it is revoked', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  await signInTo(page, `/reports?client_id=${CLIENTS.acme}&tab=shared`);
  const name = `Board summary ${Date.now()}`;
  const form = page.getByRole('form', { name: 'New shared link' });
  await form.getByLabel('Name').fill(name);
  await form.getByRole('button', { name: 'Create link' }).click();
  const linkField = page.getByRole('textbox', { name: 'Link', exact: true });
  await expect(linkField).toHaveValue(/\/embed\/reports#[A-Za-z0-9_-]{43}$/);
  const link = await linkField.inputValue();
  await expect(page.getByRole('textbox', { name: 'Embed code' })).toHaveValue(/^<iframe src="/);
  const row = page.getByRole('table', { name: 'Shared links' }).getByRole('row', { name: new RegExp(name) });
  await expect(row).toContainText('active');
  await page.mouse.move(0, 0);
  await shot(page, 'embedded-reports-panel', { fullPage: true });
  const panelAxe = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  expect(panelAxe.violations.map((v) => v.id)).toEqual([]);

  // A fresh browser: no cookie, no session.
  const guest = await browser.newContext();
  const viewer = await guest.newPage();
  const errors: string[] = [];
  viewer.on('pageerror', (err) => errors.push(err.message));
  await viewer.goto(link);
  await expect(viewer.getByRole('heading', { level: 1, name })).toBeVisible();
  await expect(viewer.getByText('Acme', { exact: false }).first()).toBeVisible();
  await expect(viewer.getByText('Pipeline generated')).toBeVisible();
  // The demo's engagement: a real, abbreviated number of impressions.
  const impressions = viewer.getByText('Impressions').locator('xpath=..');
  await expect(impressions).toContainText(/\d/);
  await expect(viewer.getByRole('banner')).toHaveCount(0);
  await shot(viewer, 'embedded-report', { fullPage: true });
  const axe = await new AxeBuilder({ page: viewer })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  expect(axe.violations.map((v) => v.id)).toEqual([]);

  // Inside another tool's frame, on another origin.
  const tool = await otherTool(link);
  const wiki = await guest.newPage();
  await wiki.goto(tool.url);
  const frame = wiki.frameLocator('iframe[title="Rally report"]');
  await expect(frame.getByRole('heading', { level: 1, name })).toBeVisible();
  await shot(wiki, 'embedded-report-framed');
  await tool.close();

  // Revoked: the link stops working at once.
  await row.getByRole('button', { name: `Revoke ${name}` }).click();
  await row.getByRole('button', { name: 'Revoke now' }).click();
  await expect(row).toContainText('revoked');
  await viewer.reload();
  await expect(viewer.getByRole('heading', { level: 1, name: 'This link no longer works' })).toBeVisible();
  await expect(viewer.getByText(/has been revoked/)).toBeVisible();
  await shot(viewer, 'embedded-report-revoked');
  expect(errors).toEqual([]);
  await guest.close();
});
