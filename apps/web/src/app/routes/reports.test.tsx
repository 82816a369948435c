import { notifications } from '@mantine/notifications';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ClientSettings } from '@rally/shared/schemas/content';
import type { ReportOpportunity } from '@rally/shared/schemas/reports';
import { loadSession, resetAuth } from '../../lib/auth/store.ts';
import { acmeSession, CLIENT_IDS } from '../../testing/fixtures.ts';
import type { Role, Routes } from '../../testing/fixtures.ts';
import { fakeServer, renderWithRouter } from '../../testing/render.tsx';
import ReportsRoute from './reports.tsx';

/**
 * /reports as the app composes it (issue 17): the reports feature's tabs with the revenue feature's
 * parts in Pipeline, Revenue and Opportunities.
 */
const ACME = CLIENT_IDS.acme;
const base = `/v1/report/client/${ACME}`;
const range = { from: 1_790_000_000, to: 1_797_776_000 };

const settings = (enabled: boolean): ClientSettings => ({
  client_id: ACME,
  colors: { background: '#111827', text: '#ffffff', accent: '#f97316', primary: null },
  facebook_cover_photo: '',
  facebook_name: '',
  facebook_page_url: '',
  facebook_profile_photo: '',
  favicon_url: '',
  website_url: '',
  logo_url: '',
  revenue_report_enabled: enabled,
  attribution_window_days: 90,
  landing_button_name: 'Book a meeting',
  landing_page_domain: null,
  landing_trigger_field: 'calendar_url',
  landing_trigger_type: 'button',
  updated_at: null,
});

const won: ReportOpportunity = {
  id: '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c00e001',
  name: 'Brightline - Fleet rollout',
  account_name: 'Brightline Freight',
  company_id: null,
  amount_cents: 12_000_000,
  currency: 'USD',
  stage: 'Closed Won',
  is_closed: true,
  is_won: true,
  created_at: '2026-09-01T10:00:00.000Z',
  close_date: '2026-11-01',
  generated_engaged_at: '2026-08-20T10:00:00.000Z',
  influenced: true,
  engaged_prospects: 2,
};
const performance = {
  range,
  view: 'weekly',
  rows: [],
  uncounted: [
    { type: 'impression', verdict: 'machine_open', count: 1250 },
    { type: 'impression', verdict: 'bot', count: 3 },
  ],
};
const alignment = {
  range,
  outreach_activity_types: [],
  counts: { both: 0, outreach_only: 0, ads_only: 0, total: 0 },
  items: [],
  total: 0,
  page: 1,
  page_size: 25,
};

async function open(path: string, routes: Routes, role: Role = 'yellow_sdr', enabled = true) {
  const server = fakeServer({
    ...acmeSession(role),
    [`GET /v1/rest/client/${ACME}/settings`]: { body: settings(enabled) },
    '/sc/performance/by_date': { body: performance },
    [`${base}/alignment`]: { body: alignment },
    [`${base}/export_files`]: { body: { items: [] } },
    ...routes,
  });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  const view = renderWithRouter(<ReportsRoute />, path);
  return { server, ...view };
}

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

describe('/reports tabs (issue 17)', () => {
  it('Engagement, Pipeline, Revenue, Opportunities (and Shared links); the tab and view follow the address', async () => {
    const { router, server } = await open(`/reports?client_id=${ACME}`, {
      [`${base}/opportunity`]: { body: { items: [won], total: 1, page: 1, page_size: 25 } },
      [`${base}/pipeline/generated`]: {
        body: {
          range,
          window_days: 90,
          currency: 'USD',
          total: 1,
          amount_cents: won.amount_cents,
          by_month: [],
          items: [won],
          page: 1,
          page_size: 25,
        },
      },
    });
    const tabs = within(await screen.findByRole('tablist', { name: 'Reports' })).getAllByRole('tab');
    expect(tabs.map((t) => t.textContent)).toEqual([
      'Engagement',
      'Pipeline',
      'Revenue',
      'Opportunities',
      'Shared links',
    ]);
    expect(screen.getByRole('tab', { name: 'Engagement' })).toHaveAttribute('aria-selected', 'true');
    // Engagement: engagement over time above the alignment, content and signals views.
    expect(
      await screen.findByText('No account was worked by sales outreach or your ads in this period.'),
    ).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Export engagement' })).toBeInTheDocument();
    // What the period's engagement left out, and why (issue 38).
    const uncounted = screen.getByRole('region', { name: 'Not counted in the engagement report' });
    expect(uncounted).toHaveTextContent('Not counted in this period');
    expect(
      within(uncounted)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual([
      '1,250 opens by Apple Mail Privacy Protection prefetch not counted',
      '3 opens by bots not counted',
    ]);
    expect(
      within(screen.getByRole('tablist', { name: 'Engagement reports' }))
        .getAllByRole('tab')
        .map((t) => t.textContent),
    ).toEqual(['Alignment', 'Content', 'Signals']);

    await userEvent.click(screen.getByRole('tab', { name: 'Pipeline' }));
    expect(router.state.location.search).toBe(`?client_id=${ACME}&tab=pipeline`);
    expect(await screen.findByRole('table', { name: 'Pipeline generated' })).toBeInTheDocument();
    expect(
      within(screen.getByRole('tablist', { name: 'Pipeline reports' }))
        .getAllByRole('tab')
        .map((t) => t.textContent),
    ).toEqual(['Generated', 'Progressed', 'Priority']);

    await userEvent.click(screen.getByRole('tab', { name: 'Opportunities' }));
    const table = await screen.findByRole('table', { name: 'Opportunities' });
    expect(within(table).getByRole('button', { name: 'Brightline - Fleet rollout' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Export all (CSV)' })).toBeInTheDocument();
    expect(router.state.location.search).toBe(`?client_id=${ACME}&tab=opportunities`);
    const asked = server.calls.filter((c) => c.url.startsWith(`${base}/opportunity?`));
    expect(asked.at(-1)?.url).toContain('filter=all');
  });

  it('Opportunities: "Prepare file" asks for the export file; the list follows it until ready, then downloads it', async () => {
    const file = {
      id: '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c00f001',
      report: 'opportunity',
      filter: 'all',
      name: 'opportunities-all-2026-09-21-2026-12-20.csv',
      range,
      rows: 0,
      bytes: 0,
      error: null,
      created_at: '2026-11-26T11:00:00.000Z',
      finished_at: null,
      expires_at: '2026-12-03T11:00:00.000Z',
      download_url: null,
    };
    let state: 'none' | 'running' | 'done' = 'none';
    const posted: unknown[] = [];
    const { server } = await open(`/reports?client_id=${ACME}&tab=opportunities`, {
      [`${base}/opportunity`]: { body: { items: [won], total: 1, page: 1, page_size: 25 } },
      [`POST ${base}/export_files`]: (init) => {
        posted.push(JSON.parse(String(init?.body)));
        state = 'running';
        return { status: 202, body: { ...file, status: 'queued' } };
      },
      [`GET ${base}/export_files`]: () => ({
        body: {
          items:
            state === 'none'
              ? []
              : state === 'running'
                ? [{ ...file, status: 'running' }]
                : [{ ...file, status: 'done', rows: 1, bytes: 120, download_url: `/v1/download/${file.id}` }],
        },
      }),
      [`/v1/download/${file.id}`]: { body: 'Opportunity\r\n' },
    });
    await screen.findByRole('table', { name: 'Opportunities' });
    // No files yet: no list.
    expect(screen.queryByRole('table', { name: 'Export files' })).not.toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Prepare file' }));
    await waitFor(() => expect(posted).toHaveLength(1));
    expect(posted[0]).toMatchObject({ report: 'opportunity', filter: 'all' });
    const files = await screen.findByRole('table', { name: 'Export files' });
    expect(await within(files).findByText('Writing')).toBeInTheDocument();
    // The message links to the list it names (issue 42 item 15), which takes the focus.
    const link = await screen.findByRole('link', { name: 'Export files' });
    expect(link).toHaveAttribute('href', '#export-files');
    Element.prototype.scrollIntoView ??= () => undefined;
    await userEvent.click(link);
    expect(screen.getByRole('region', { name: 'Export files' })).toHaveFocus();
    expect(within(files).queryByRole('button', { name: /Download/ })).not.toBeInTheDocument();

    state = 'done'; // the list is asked again while a file is being written
    const download = await within(files).findByRole(
      'button',
      { name: `Download ${file.name}` },
      { timeout: 5_000 },
    );
    expect(within(files).getByText('Ready')).toBeInTheDocument();
    URL.createObjectURL = vi.fn(() => 'blob:file');
    URL.revokeObjectURL = vi.fn();
    await userEvent.click(download);
    await waitFor(() => expect(server.calls.some((c) => c.url === `/v1/download/${file.id}`)).toBe(true));
  });

  it('Revenue: the headline numbers and the won deals the ads were behind', async () => {
    const { server } = await open(`/reports?client_id=${ACME}&tab=revenue`, {
      [`${base}/summary`]: {
        body: {
          range,
          window_days: 90,
          currency: 'USD',
          opportunities_created: 4,
          pipeline_created_cents: 40_000_000,
          generated: 2,
          pipeline_generated_cents: 25_000_000,
          progressed: 1,
          pipeline_progressed_cents: 5_000_000,
          won: 1,
          revenue_won_cents: 12_000_000,
          influenced: 1,
          revenue_influenced_cents: 12_000_000,
          engaged_accounts: 3,
          impressions: 1200,
          clicks: 12,
          views: 4,
          new_superprospects: 2,
          other_currency_opportunities: 0,
        },
      },
      [`${base}/value_report`]: {
        body: {
          range,
          window_days: 90,
          currency: 'USD',
          superprospects_billed: 0,
          spend_cents: 0,
          spend_currency: 'USD',
          network_spend_cents: 0,
          network_spend_other: [],
          pipeline_generated_cents: 25_000_000,
          pipeline_progressed_cents: 5_000_000,
          revenue_influenced_cents: 12_000_000,
          pipeline_per_spend: null,
          revenue_per_spend: null,
        },
      },
      [`${base}/opportunity`]: { body: { items: [won], total: 1, page: 1, page_size: 25 } },
    });
    expect(await screen.findByRole('heading', { name: 'Revenue influenced' })).toBeInTheDocument();
    expect(await screen.findByText('1 of 1 won ($120K)')).toBeInTheDocument();
    expect(await screen.findByRole('table', { name: 'Opportunities' })).toBeInTheDocument();
    const asked = server.calls.filter((c) => c.url.startsWith(`${base}/opportunity?`));
    expect(asked.at(-1)?.url).toContain('filter=influenced');
  });

  it('old links still open their report: ?tab=priority is Pipeline › Priority, ?tab=content Engagement › Content', async () => {
    const { router } = await open(`/reports?client_id=${ACME}&tab=priority`, {
      [`${base}/pipeline/priority`]: {
        body: {
          days: 30,
          from: '2026-11-07T00:00:00.000Z',
          time_zone: 'UTC',
          items: [],
          total: 0,
          page: 1,
          page_size: 25,
        },
      },
      [`${base}/content`]: { body: { range, ads: [], landing_pages: [] } },
      [`${base}/networks`]: { body: { range, rows: [], totals: [] } },
    });
    expect(await screen.findByRole('tab', { name: 'Pipeline' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByRole('tab', { name: 'Priority' })).toHaveAttribute('aria-selected', 'true');
    await waitFor(() =>
      expect(router.state.location.search).toBe(`?client_id=${ACME}&tab=pipeline&view=priority`),
    );
    // The priority list has its own period (days); the range picker is not shown.
    expect(screen.queryByRole('radiogroup', { name: 'Period' })).not.toBeInTheDocument();

    await act(() => router.navigate(`/reports?client_id=${ACME}&tab=content`));
    await waitFor(() =>
      expect(router.state.location.search).toBe(`?client_id=${ACME}&tab=engagement&view=content`),
    );
    expect(await screen.findByText(/No ad yet/)).toBeInTheDocument();
    expect(screen.getByRole('tab', { name: 'Engagement' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByRole('tab', { name: 'Content' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByRole('radiogroup', { name: 'Period' })).toBeInTheDocument();
  });

  it('with the revenue report off, its tabs say so, and an SDR is told to ask an owner (read-only)', async () => {
    await open(`/reports?client_id=${ACME}&tab=opportunities`, {}, 'yellow_sdr', false);
    expect(await screen.findByText('The revenue report is off for this client')).toBeInTheDocument();
    expect(screen.getByText('Ask an owner or admin of this client to turn it on.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Turn on the revenue report' })).not.toBeInTheDocument();
  });
});
