import { readFileSync } from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, stretch } from './fixtures.ts';
import { CLIENTS, signInTo } from './support.ts';
import { shot } from './shots.ts';

/**
 * Issue 17: the /reports screen on the demo data (the CRM demo's accounts, contacts with outreach
 * activity and opportunities, and the demo engagement), in Chromium.
 */
test.describe('/reports (issue 17)', () => {
  test('Engagement (alignment, content, signals), Pipeline (priority), Revenue and Opportunities show real rows, and a table exports as CSV', async ({
    page,
  }) => {
    test.setTimeout(120_000);
    await signInTo(page, `/reports?client_id=${CLIENTS.acme}`);
    await expect(page.getByRole('heading', { name: 'Reports', level: 1 })).toBeVisible();
    await expect(page.getByRole('tablist', { name: 'Reports', exact: true }).getByRole('tab')).toHaveText([
      'Engagement',
      'Pipeline',
      'Revenue',
      'Opportunities',
      'Shared links',
    ]);

    const accounts = page.getByRole('table', { name: 'Accounts by alignment' });
    await expect(accounts.getByRole('row').nth(1)).toBeVisible();
    await shot(page, 'reports-alignment', { fullPage: true });
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^alignment-all-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = readFileSync((await download.path()) ?? '', 'utf8');
    expect(csv.split('\r\n')[0]).toContain('Account,Website,Worked by');
    // The first row's account name (its first cell is the row's tick box since issue 42 item 11).
    const firstAccount = (
      await accounts.getByRole('row').nth(1).getByRole('button').first().innerText()
    ).split('\n')[0]!;
    expect(csv).toContain(firstAccount);

    // An account opens to its buying group, a person of it to the prospect's timeline.
    await accounts.getByRole('button', { name: firstAccount }).click();
    const account = page.getByRole('dialog', { name: firstAccount });
    await expect(account.getByRole('table').first()).toBeVisible();
    await shot(page, 'reports-buying-group');
    const axe = () =>
      new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    expect((await axe()).violations.map((v) => v.id)).toEqual([]);
    await account.getByRole('table').first().getByRole('button').first().click();
    const person = page.getByRole('dialog');
    await expect(person.getByRole('table', { name: 'Timeline' })).toBeVisible();
    await expect(person.getByRole('table', { name: 'Timeline' }).getByRole('row').nth(1)).toBeVisible();
    await shot(page, 'reports-target');
    expect((await axe()).violations.map((v) => v.id)).toEqual([]);
    await person.getByRole('button', { name: 'Close the prospect' }).click();
    await expect(page.getByRole('dialog')).toHaveCount(0);

    await page.getByRole('tab', { name: 'Content' }).click();
    await expect(page).toHaveURL(/tab=engagement&view=content/);
    await expect(page.getByRole('table', { name: 'Ad performance' }).getByRole('row').nth(1)).toBeVisible();
    await shot(page, 'reports-content', { fullPage: true });

    await page.getByRole('tab', { name: 'Signals' }).click();
    await expect(page.getByText('Signal used')).toBeVisible();
    await expect(
      page
        .getByRole('table', { name: 'Superprospects and outreach' })
        .or(page.getByText(/No prospect became/)),
    ).toBeVisible();
    await shot(page, 'reports-signals', { fullPage: true });

    await page.getByRole('tab', { name: 'Pipeline' }).click();
    await expect(page.getByRole('table', { name: 'Pipeline generated' })).toBeVisible();
    await shot(page, 'reports-pipeline', { fullPage: true });
    await page.getByRole('tab', { name: 'Priority' }).click();
    const priority = page.getByRole('table', { name: 'Open opportunities by engagement' });
    // The priority report takes seconds on the embedded database the whole suite shares (noted in
    // issue 17's closing note; rollups are the next design).
    await expect(priority.getByRole('row').nth(1)).toBeVisible({ timeout: stretch(30_000) });
    await shot(page, 'reports-priority', { fullPage: true });
    const [prio] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    expect(prio.suggestedFilename()).toBe('pipeline-priority-30d.csv');

    await page.getByRole('tab', { name: 'Revenue' }).click();
    await expect(page.getByRole('heading', { name: 'Revenue influenced' })).toBeVisible();
    await expect(page.getByText(/of \d+ new opportunities/)).toBeVisible();
    await shot(page, 'reports-revenue', { fullPage: true });

    await page.getByRole('tab', { name: 'Opportunities' }).click();
    await expect(page).toHaveURL(/tab=opportunities/);
    await expect(page.getByRole('table', { name: 'Opportunities' }).getByRole('row').nth(1)).toBeVisible();
    await shot(page, 'reports-opportunities', { fullPage: true });
    const [opps] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export all (CSV)' }).click(),
    ]);
    expect(opps.suggestedFilename()).toMatch(/^opportunities-all-\d{4}-\d{2}-\d{2}\.csv$/);

    // Issue 18's export files: the same report prepared in the background, then downloaded from
    // the list through /v1/download/{id}, holds the same CSV as the streamed export.
    await page.getByRole('button', { name: 'Prepare file' }).click();
    const files = page.getByRole('table', { name: 'Export files' });
    await expect(files.getByText('Ready').first()).toBeVisible({ timeout: stretch(30_000) });
    const [prepared] = await Promise.all([
      page.waitForEvent('download'),
      files
        .getByRole('button', { name: /^Download opportunities-all-/ })
        .first()
        .click(),
    ]);
    expect(prepared.suggestedFilename()).toMatch(
      /^opportunities-all-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/,
    );
    const streamedCsv = readFileSync(await opps.path(), 'utf8');
    expect(streamedCsv.split('\r\n').length).toBeGreaterThan(2);
    expect(readFileSync(await prepared.path(), 'utf8')).toBe(streamedCsv);
  });

  test('priority: the owner marks an account as a sales priority, its deals move to the top, then unmarks it', async ({
    page,
  }) => {
    test.setTimeout(150_000);
    await signInTo(page, `/reports?client_id=${CLIENTS.acme}&tab=priority`);
    const table = page.getByRole('table', { name: 'Open opportunities by engagement' });
    const rows = table.locator('tbody tr');
    await expect(rows.first()).toBeVisible({ timeout: stretch(30_000) });
    // The last row of the first page: an account that is not on top by engagement alone.
    const mark = rows.last().getByRole('button', { name: /^Mark .* as a sales priority$/ });
    const label = (await mark.getAttribute('aria-label')) ?? '';
    const account = label.replace(/^Mark /, '').replace(/ as a sales priority$/, '');
    await mark.click();
    const unmark = rows.first().getByRole('button', { name: `Unmark ${account} as a sales priority` });
    await expect(unmark).toBeVisible({ timeout: stretch(30_000) });
    await expect(unmark).toHaveAttribute('aria-pressed', 'true');
    // The pointer off the table: a hovered row's grey is not what a reader sees.
    await page.mouse.move(0, 0);
    await shot(page, 'reports-priority-marked', { fullPage: true });
    const axe = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
      .analyze();
    expect(
      axe.violations.map(
        (v) => `${v.id}: ${v.nodes.map((n) => `${n.target.join(' ')} ${n.failureSummary}`).join('; ')}`,
      ),
    ).toEqual([]);

    // Unmarked again: the list is back in engagement order (the shared demo is left as it was).
    await unmark.click();
    await expect(table.getByRole('button', { name: `Unmark ${account} as a sales priority` })).toHaveCount(
      0,
      { timeout: stretch(30_000) },
    );
  });
});
