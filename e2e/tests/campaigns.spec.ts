import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { expect, test, stretch } from './fixtures.ts';
import { CLIENTS, signInTo } from './support.ts';

/** The demo marketing manager of Acme (apps/server/src/db/seed.ts). */
const MORGAN = { email: 'morgan@rally.test', password: 'rally-demo-2026', name: 'Morgan Lee' };

/** A demo cohort's fixed id (apps/server/src/modules/cohorts/demo.ts demoCohortId). */
const demoCohortId = (clientId: string, n: 0 | 1) => {
  const h = createHash('sha256').update(`rally-demo-cohort:${clientId}:${n}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

/** The names of a zip's entries, from its central directory (the end record says where it is). */
function zipEntries(zip: Buffer): string[] {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  expect(eocd).toBeGreaterThan(0);
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    const nameLength = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30);
    const comment = zip.readUInt16LE(at + 32);
    names.push(zip.subarray(at + 46, at + 46 + nameLength).toString('utf8'));
    at += 46 + nameLength + extra + comment;
  }
  return names;
}

/**
 * Issue 18: a manager plans a campaign for a demo cohort from its page, makes it active with an ad,
 * and downloads its ads: a zip of four PNGs, one per ad size. Then makes a cohort from a CSV of people.
 */
test('a manager creates a campaign from a demo cohort and downloads its ads as a zip', async ({ page }) => {
  test.setTimeout(90_000);
  await signInTo(page, `/cohorts/${demoCohortId(CLIENTS.acme, 0)}?client_id=${CLIENTS.acme}`, MORGAN);
  // The demo campaign is on the cohort page.
  await expect(page.getByRole('heading', { name: 'Campaigns' })).toBeVisible({ timeout: stretch(20_000) });
  await expect(page.getByRole('link', { name: /spring flight/ })).toBeVisible();

  await page.getByRole('link', { name: 'New campaign' }).click();
  await expect(page.getByRole('heading', { name: 'New campaign', level: 1 })).toBeVisible({
    timeout: stretch(20_000),
  });
  const name = `Holiday push ${Date.now()}`;
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('First day').fill('2026-12-01');
  await page.getByLabel('Last day').fill('2026-12-24');
  await page.getByText('Active', { exact: true }).click();
  await page.getByRole('button', { name: 'Create campaign' }).click();

  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible({ timeout: stretch(20_000) });
  await expect(page.getByLabel('Status: Active')).toBeVisible();
  await expect(page.getByText(/2026-12-01 to 2026-12-24/)).toBeVisible();

  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download ads' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^Holiday-push-\d+-ads\.zip$/);
  const zip = await readFile((await download.path())!);
  expect(zip.subarray(0, 4).toString('hex')).toBe('504b0304');
  const names = zipEntries(zip);
  expect(names).toHaveLength(4);
  expect(names.map((n) => n.replace(/^.*-(\d+x\d+)\.png$/, '$1')).sort()).toEqual([
    '1080x1080',
    '1200x628',
    '300x250',
    '728x90',
  ]);

  // Back on the cohort page, the new campaign is listed.
  await page.getByRole('link', { name: /^← / }).click();
  await expect(page.getByRole('link', { name })).toBeVisible();
  await page.goto(`/cohorts/${demoCohortId(CLIENTS.acme, 1)}?client_id=${CLIENTS.acme}`);
  await expect(page.getByText(/No campaigns yet/)).toBeVisible({ timeout: stretch(20_000) });
  await page.goto(`/campaigns/00000000-0000-4000-8000-000000000000?client_id=${CLIENTS.acme}`);
  await expect(page.getByText('Campaign not found')).toBeVisible({ timeout: stretch(20_000) });
});

test('a manager makes a cohort from a CSV of people, seeing which rows are usable first', async ({
  page,
}) => {
  test.setTimeout(90_000);
  await signInTo(page, `/cohorts/new?client_id=${CLIENTS.acme}`, MORGAN);
  const name = `Expo list ${Date.now()}`;
  await page.getByLabel('Name').fill(name);
  await page.getByText('CSV of people').click();
  await page.locator('input[type="file"]').setInputFiles({
    name: 'people.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(
      [
        'Email,First name,Last name,Company,Title',
        'ana.lima@expo.example,Ana,Lima,Expo Freight,VP Operations',
        ',Bo,Chen,Harbor Supply,Buyer',
        'not-an-email,Cy,Dee,,',
      ].join('\n'),
    ),
  });
  const check = page.getByTestId('people-check');
  await expect(check).toContainText('2 usable', { timeout: stretch(20_000) });
  await expect(check).toContainText('1 not usable');
  await expect(page.getByText('email is not a valid e-mail address')).toBeVisible();
  await page.getByRole('button', { name: 'Create cohort' }).click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible({ timeout: stretch(20_000) });
  await expect(page.getByText(/CSV upload/)).toBeVisible();
  await expect(page.getByRole('table', { name: 'Members' }).getByText('Ana Lima')).toBeVisible();
});
