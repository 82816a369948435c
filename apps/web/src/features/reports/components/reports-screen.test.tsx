import { notifications } from '@mantine/notifications';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { acmeSession, CLIENT_IDS } from '../../../testing/fixtures.ts';
import type { Routes } from '../../../testing/fixtures.ts';
import { fakeServer, renderWithRouter } from '../../../testing/render.tsx';
import { ReportsScreen } from './reports-screen.tsx';

const ACME = CLIENT_IDS.acme;
const base = `/v1/report/client/${ACME}`;
const range = { from: 1_790_000_000, to: 1_797_776_000 };
const paged = { total: 1, page: 1, page_size: 25 };

const ALIGNMENT = {
  range,
  outreach_activity_types: ['Call', 'Email'],
  counts: { both: 1, outreach_only: 2, ads_only: 3, total: 6 },
  items: [
    {
      account_id: '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c00a001',
      name: 'Brightline Freight',
      website: 'https://brightline.example',
      segment: 'both',
      outreach_activities: 7,
      outreach_contacts: 2,
      last_outreach_at: '2026-11-20T10:00:00.000Z',
      impressions: 1234,
      clicks: 5,
      views: 2,
      engaged_prospects: 3,
      last_engaged_at: '2026-11-21T10:00:00.000Z',
    },
  ],
  ...paged,
};

const ACCOUNT = '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c00a009';
const priorityList = (marked: boolean) => ({
  days: 30,
  from: '2026-11-06T05:00:00.000Z',
  time_zone: 'America/New_York',
  items: [
    {
      opportunity_id: '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c00b001',
      name: 'Brightline - Fleet pilot',
      account_name: 'Brightline Freight',
      company_id: ACCOUNT,
      stage: 'Qualification',
      amount_cents: 4_500_000,
      currency: 'USD',
      close_date: null,
      impressions: 12,
      clicks: 2,
      views: 1,
      engaged_prospects: 2,
      last_engaged_at: '2026-11-21T10:00:00.000Z',
      score: 27,
      is_priority: marked,
      priority_marked_at: marked ? '2026-11-25T10:00:00.000Z' : null,
    },
  ],
  ...paged,
});

async function open(path: string, routes: Routes, role: Parameters<typeof acmeSession>[0] = 'yellow_sdr') {
  const server = fakeServer({ ...acmeSession(role), ...routes });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  renderWithRouter(<ReportsScreen />, path);
  return server;
}

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

describe('ReportsScreen (issue 17)', () => {
  it('alignment: the counts per segment and the accounts table; a segment refetches with its filter', async () => {
    const server = await open(`/reports?client_id=${ACME}`, { [`${base}/alignment`]: { body: ALIGNMENT } });
    const table = await screen.findByRole('table', { name: 'Accounts by alignment' });
    const row = within(table).getByRole('row', { name: /Brightline Freight/ });
    expect(within(row).getByText('Both')).toBeInTheDocument();
    expect(within(row).getByText('1,234')).toBeInTheDocument();
    expect(screen.getByText(/\(Call, Email\)/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('radio', { name: 'Ads only (3)' }));
    expect(
      server.calls.some((c) => c.url.startsWith(`${base}/alignment?`) && c.url.includes('segment=ads_only')),
    ).toBe(true);
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeInTheDocument();
  });

  it('content: an empty client says so for ads and landing pages', async () => {
    await open(`/reports?client_id=${ACME}&tab=content`, {
      [`${base}/content`]: { body: { range, ads: [], landing_pages: [] } },
      [`${base}/networks`]: { body: { range, rows: [], totals: [] } },
    });
    expect(await screen.findByText(/No ad yet/)).toBeInTheDocument();
    expect(screen.getByText('No landing page yet.')).toBeInTheDocument();
  });

  it('signals: a failed load shows the error with a way to try again', async () => {
    await open(`/reports?client_id=${ACME}&tab=signals`, {
      [`${base}/signals/utilization`]: {
        status: 422,
        body: {
          message: 'Validation Error',
          errors: [{ field: 'querystring.to', message: 'must be after from' }],
        },
      },
    });
    expect(await screen.findByText('Could not load the signals report')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });

  it('priority: open opportunities with their score; an SDR sees the mark but cannot change it', async () => {
    await open(`/reports?client_id=${ACME}&tab=priority`, {
      [`${base}/pipeline/priority`]: { body: priorityList(true) },
    });
    const table = await screen.findByRole('table', { name: 'Open opportunities by engagement' });
    const row = within(table).getByRole('row', { name: /Fleet pilot/ });
    expect(within(row).getByText('27')).toBeInTheDocument();
    // The days the engagement counts, beside the list (issue 43).
    expect(
      screen.getByText(
        /Engagement counts whole days in America\/New_York: today so far and the previous 29 days \(since midnight, Nov 6\)\./,
      ),
    ).toBeInTheDocument();
    expect(within(row).getByText('$45,000')).toBeInTheDocument();
    expect(within(row).getByLabelText('Brightline Freight: sales priority')).toBeInTheDocument();
    expect(within(row).queryByRole('button', { name: /sales priority/ })).not.toBeInTheDocument();
  });

  it('priority: a manager marks an account as a sales priority and the list is asked again', async () => {
    let marked = false;
    const server = await open(
      `/reports?client_id=${ACME}&tab=priority`,
      {
        [`${base}/pipeline/priority`]: () => ({ body: priorityList(marked) }),
        [`POST /v1/rest/client/${ACME}/sales/priority`]: (init) => {
          marked = true;
          return {
            body: {
              kind: 'account',
              account_id: JSON.parse(String(init?.body)).account_id,
              target_id: null,
              is_priority: true,
              marked_at: '2026-11-25T10:00:00.000Z',
            },
          };
        },
        [`DELETE /v1/rest/client/${ACME}/sales/priority`]: () => {
          marked = false;
          return {
            body: {
              kind: 'account',
              account_id: ACCOUNT,
              target_id: null,
              is_priority: false,
              marked_at: null,
            },
          };
        },
      },
      'green_manager',
    );
    const mark = await screen.findByRole('button', { name: 'Mark Brightline Freight as a sales priority' });
    expect(mark).toHaveAttribute('aria-pressed', 'false');
    await userEvent.click(mark);
    const unmark = await screen.findByRole('button', {
      name: 'Unmark Brightline Freight as a sales priority',
    });
    expect(unmark).toHaveAttribute('aria-pressed', 'true');
    const post = server.calls.find((c) => c.init?.method === 'POST' && c.url.endsWith('/sales/priority'));
    expect(JSON.parse(String(post?.init?.body))).toEqual({ account_id: ACCOUNT });
    await userEvent.click(unmark);
    expect(
      await screen.findByRole('button', { name: 'Mark Brightline Freight as a sales priority' }),
    ).toBeInTheDocument();
    expect(
      server.calls.some((c) => c.init?.method === 'DELETE' && c.url.includes(`account_id=${ACCOUNT}`)),
    ).toBe(true);
  });
});

const buyingGroup = (account: string) => ({
  range,
  account: { id: account, name: 'Brightline Freight', website: null },
  roles: [
    {
      role: 'Decision Maker',
      impressions: 9,
      clicks: 1,
      views: 0,
      members: [
        {
          prospect_id: null,
          contact_id: '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c00c001',
          name: 'Riley Chen',
          email: null,
          title: 'COO',
          role: 'Decision Maker',
          is_primary: true,
          impressions: 9,
          clicks: 1,
          views: 0,
          last_engaged_at: null,
          super_date: null,
          outreach_activities: 4,
          target_id: null,
        },
      ],
    },
  ],
  members: 1,
  engaged_members: 1,
  open_opportunities: 2,
});

async function checkBuyingGroup() {
  const drawer = await screen.findByRole('dialog', { name: 'Brightline Freight' });
  const table = await within(drawer).findByRole('table', { name: 'Buying group: Decision Maker' });
  expect(within(table).getByText('Riley Chen')).toBeInTheDocument();
  expect(within(table).getByText('COO · primary contact')).toBeInTheDocument();
}

describe('ReportsScreen: a number opens to the rows behind it', () => {
  it('an account of the alignment opens its buying group by role', async () => {
    const account = ALIGNMENT.items[0]!.account_id;
    await open(`/reports?client_id=${ACME}`, {
      [`${base}/alignment`]: { body: ALIGNMENT },
      [`${base}/buying_group/${account}`]: { body: buyingGroup(account) },
    });
    await userEvent.click(await screen.findByRole('button', { name: 'Brightline Freight' }));
    await checkBuyingGroup();
  });

  it('?account= opens the buying group at once (the global search links here)', async () => {
    const account = ALIGNMENT.items[0]!.account_id;
    await open(`/reports?client_id=${ACME}&tab=engagement&account=${account}`, {
      [`${base}/alignment`]: { body: ALIGNMENT },
      [`${base}/buying_group/${account}`]: { body: buyingGroup(account) },
    });
    await checkBuyingGroup();
  });
});
