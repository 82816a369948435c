import { notifications } from '@mantine/notifications';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { acmeSession, CLIENT_IDS } from '../../../testing/fixtures.ts';
import type { Routes } from '../../../testing/fixtures.ts';
import { fakeServer, renderWithRouter } from '../../../testing/render.tsx';
import { ReportsScreen } from './reports-screen.tsx';

/**
 * Issue 42 item 11, "sort on every column": a report table paged by the server sorts there (a sort
 * of one page among several would mislead); while one page holds every row it sorts in the browser.
 */
const ACME = CLIENT_IDS.acme;
const base = `/v1/report/client/${ACME}`;
const range = { from: 1_790_000_000, to: 1_797_776_000 };

const account = (n: number) => ({
  account_id: `6f1c2a8e-4b1d-4c3a-9e51-0a7d2c00a${String(n).padStart(3, '0')}`,
  name: `Account ${n}`,
  website: null,
  segment: 'both',
  outreach_activities: n,
  outreach_contacts: 1,
  last_outreach_at: '2026-11-20T10:00:00.000Z',
  impressions: 100 - n,
  clicks: n,
  views: 0,
  engaged_prospects: 1,
  last_engaged_at: '2026-11-21T10:00:00.000Z',
});
const alignment = (total: number) => ({
  range,
  outreach_activity_types: ['Call'],
  counts: { both: total, outreach_only: 0, ads_only: 0, total },
  items: [account(1), account(2), account(3)],
  total,
  page: 1,
  page_size: 25,
});

async function open(routes: Routes) {
  const server = fakeServer({ ...acmeSession('purple_owner'), ...routes });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  renderWithRouter(<ReportsScreen />, `/reports?client_id=${ACME}`);
  return server;
}
const alignmentCalls = (server: { calls: { url: string }[] }) =>
  server.calls.filter((c) => c.url.startsWith(`${base}/alignment?`)).map((c) => new URL(c.url, 'http://x'));

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

describe('report tables sorted by the server when paged (issue 42 item 11)', () => {
  it('alignment over several pages: a header asks the server for that sort, from the first page', async () => {
    const server = await open({ [`${base}/alignment`]: { body: alignment(60) } });
    const table = await screen.findByRole('table', { name: 'Accounts by alignment' });
    expect(alignmentCalls(server).every((u) => !u.searchParams.has('sort'))).toBe(true);

    await userEvent.click(within(table).getByRole('button', { name: 'Sort by impressions' }));
    await waitFor(() => expect(alignmentCalls(server).at(-1)?.searchParams.get('sort')).toBe('impressions'));
    const asked = alignmentCalls(server).at(-1)!;
    // A number sorts largest first at the first click, and the list starts again at its first page.
    expect(asked.searchParams.get('order')).toBe('desc');
    expect(asked.searchParams.get('page')).toBe('1');
    // The server's order is kept as it came (no reordering of the page in the browser).
    const names = within(await screen.findByRole('table', { name: 'Accounts by alignment' }))
      .getAllByRole('row')
      .slice(1)
      .map((r) => within(r).getByRole('button', { name: /Account \d/ }).textContent);
    expect(names).toEqual(['Account 1', 'Account 2', 'Account 3']);

    await userEvent.click(screen.getByRole('button', { name: 'Sort by impressions' }));
    await waitFor(() => expect(alignmentCalls(server).at(-1)?.searchParams.get('order')).toBe('asc'));

    // Engaged prospects are counted per page on the server: no sort across pages.
    expect(screen.queryByRole('button', { name: 'Sort by engaged prospects' })).not.toBeInTheDocument();
  });

  it('alignment on one page: a header sorts in the browser and asks the server nothing', async () => {
    const server = await open({ [`${base}/alignment`]: { body: alignment(3) } });
    const table = await screen.findByRole('table', { name: 'Accounts by alignment' });
    const before = alignmentCalls(server).length;
    await userEvent.click(within(table).getByRole('button', { name: 'Sort by impressions' }));
    const names = within(table)
      .getAllByRole('row')
      .slice(1)
      .map((r) => within(r).getByRole('button', { name: /Account \d/ }).textContent);
    // Impressions 99, 98, 97: largest first is the order they came in; asked again, smallest first.
    expect(names).toEqual(['Account 1', 'Account 2', 'Account 3']);
    await userEvent.click(within(table).getByRole('button', { name: 'Sort by impressions' }));
    expect(
      within(table)
        .getAllByRole('row')
        .slice(1)
        .map((r) => within(r).getByRole('button', { name: /Account \d/ }).textContent),
    ).toEqual(['Account 3', 'Account 2', 'Account 1']);
    expect(alignmentCalls(server).length).toBe(before);
    expect(screen.getByRole('button', { name: 'Sort by engaged prospects' })).toBeInTheDocument();
  });
});
