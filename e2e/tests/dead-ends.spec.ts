import http from 'node:http';
import { readFile } from 'node:fs/promises';
import { expect, test, stretch } from './fixtures.ts';
import { CLIENTS, api, registerViaApi, signInTo, unique } from './support.ts';
import { shot } from './shots.ts';

/**
 * Issue 42 item 15, dead ends, clicked through as a person would at desktop and phone width: the
 * skipped rows of an import download as CSV (a formula in a cell is defused), "Done" opens the new
 * cadence, "Prepare file" links to Export files, and a webhook's "Retrying" badge is read whole.
 * Screenshots go to E2E_SHOTS_DIR when it is set.
 */

for (const [label, viewport] of [
  ['desktop', { width: 1280, height: 800 }],
  ['phone', { width: 390, height: 844 }],
] as const) {
  test.describe(`dead ends, ${label} (issue 42 item 15)`, () => {
    test.use({ viewport });

    test('an import: the skipped rows download as CSV, and "Done" opens the new cadence', async ({
      page,
    }) => {
      test.setTimeout(120_000);
      await registerViaApi(page.request, unique('dead-ends'));
      const self = (await (await page.request.get('/v1/api/user/self')).json()) as {
        clients: { client_id: string }[];
      };
      const clientId = self.clients[0]!.client_id;
      await page.goto(`/onboarding?client_id=${clientId}`);
      await page.getByRole('button', { name: 'Upload a CSV file' }).click();
      const cadence = `Spring Walk ${label}`;
      const csv = [
        'Email Address,First Name,Cadence,Day,Rep Email',
        `ada@example.com,Ada,${cadence},1,sam.rep@example.com`,
        `not-an-email,=1+2,${cadence},1,sam.rep@example.com`,
        `grace@example.com,Grace,${cadence},2,sam.rep@example.com`,
      ].join('\n');
      const chooser = page.waitForEvent('filechooser');
      await page.getByLabel('CSV file').click();
      await (await chooser).setFiles({ name: 'spring.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      await expect(page.getByRole('table', { name: 'Column mapping' })).toBeVisible();
      await page.getByRole('button', { name: 'Import', exact: true }).click();

      await expect(page.getByText('2 rows imported')).toBeVisible({ timeout: stretch(30_000) });
      await expect(page.getByText('1 row had problems and was skipped; it is listed below.')).toBeVisible();
      const skipped = page.getByRole('table', { name: 'Rows skipped' });
      await expect(
        skipped.getByRole('row', { name: /2 E-mail address is not a valid e-mail address/ }),
      ).toBeVisible();
      await shot(page, `import-skipped-${label}`);
      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Download the skipped rows (CSV)' }).click();
      const file = await download;
      expect(file.suggestedFilename()).toBe('spring-skipped-rows.csv');
      const text = await readFile((await file.path())!, 'utf8');
      expect(text.split('\r\n')).toEqual([
        'Row,Problem,Email Address,First Name,Cadence,Day,Rep Email',
        `2,E-mail address: is not a valid e-mail address,not-an-email,'=1+2,${cadence},1,sam.rep@example.com`,
        '',
      ]);

      await page.getByRole('button', { name: 'Continue', exact: true }).click();
      await page.getByRole('button', { name: 'Continue', exact: true }).click();
      await expect(page.getByRole('heading', { name: 'You are all set' })).toBeVisible();
      await shot(page, `import-done-${label}`);
      await page.getByRole('button', { name: `Open “${cadence}”` }).click();
      await expect(page).toHaveURL(new RegExp(`/cadence/\\d+\\?client_id=${clientId}`));
      await expect(page.getByRole('heading', { name: cadence, level: 1 })).toBeVisible();
    });

    test('"Prepare file" says where the file will be, and the link goes there', async ({ page }) => {
      await signInTo(page, `/reports?client_id=${CLIENTS.agency}&tab=opportunities`);
      await page.getByRole('button', { name: 'Prepare file' }).click();
      const link = page.getByRole('alert').getByRole('link', { name: 'Export files' });
      await expect(link).toBeVisible();
      await link.click();
      const panel = page.getByRole('region', { name: 'Export files' });
      await expect(panel).toBeFocused();
      await expect(panel).toBeInViewport();
      await shot(page, `prepare-file-${label}`, { fullPage: false });
    });

    test("a retrying webhook delivery's badge reads whole beside a long answer", async ({ page }) => {
      const receiver = http.createServer((req, res) => {
        req.resume();
        req.on('end', () =>
          res
            .writeHead(503, { 'content-type': 'text/plain' })
            .end(
              'Service temporarily unavailable: the event bridge is being upgraded, try later. '.repeat(4),
            ),
        );
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      const port = (receiver.address() as { port: number }).port;
      try {
        await registerViaApi(page.request, unique('hook-badge'));
        const self = (await (await page.request.get('/v1/api/user/self')).json()) as {
          clients: { client_id: string }[];
        };
        const clientId = self.clients[0]!.client_id;
        const base = `/v1/hookly/client/${clientId}/settings`;
        const url = `http://127.0.0.1:${port}/hooks`;
        const made = await api(page.request, 'POST', base, { url, events: ['click'] }, clientId);
        expect(made.status(), await made.text()).toBe(201);

        await page.goto(`/settings/integrations/webhooks?client_id=${clientId}`);
        const card = page.getByRole('region', { name: `Endpoint ${url}` });
        await card.getByRole('button', { name: 'Send test' }).click();
        const log = card.getByRole('table', { name: 'Delivery log' });
        const badge = log.getByText('Retrying', { exact: true });
        await expect(badge).toBeVisible({ timeout: stretch(30_000) });
        // Not cut to "RETR…": the label is as wide as its text.
        expect(await badge.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
        await badge.scrollIntoViewIfNeeded();
        await shot(page, `webhook-retrying-${label}`);
      } finally {
        await new Promise<void>((resolve) => receiver.close(() => resolve()));
      }
    });
  });
}
