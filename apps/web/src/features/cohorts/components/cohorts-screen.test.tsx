import { notifications } from '@mantine/notifications';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Cohort, CohortListReply } from '@rally/shared/schemas/cohorts';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import { CohortsScreen } from './cohorts-screen.tsx';

const ACME = CLIENT_IDS.acme;
const base: Cohort = {
  id: '00000000-0000-4000-8000-00000000c001',
  client_id: ACME,
  name: 'Directors',
  source_kind: 'filter',
  crm_list_id: null,
  crm_list_name: null,
  filters: { title: 'Director' },
  status: 'active',
  status_before_archive: null,
  content_id: null,
  size: 12,
  accounts: 5,
  sync_state: 'done',
  sync_progress: null,
  sync_error: null,
  last_synced_at: '2026-11-26T10:00:00.000Z',
  impressions: 3,
  clicks: 1,
  views: 0,
  supers: 0,
  created_at: '2026-11-26T10:00:00.000Z',
  updated_at: '2026-11-26T10:00:00.000Z',
};
const archived: Cohort = {
  ...base,
  id: '00000000-0000-4000-8000-00000000c002',
  name: 'Old webinar',
  status: 'archived',
  status_before_archive: 'paused',
};

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

/** The list's query as the screen last asked for it. */
function lastListQuery(calls: { url: string }[]): URLSearchParams {
  const url = calls.filter((c) => c.url.startsWith(`/v1/report/client/${ACME}/cohort?`)).at(-1)!.url;
  return new URL(url, 'http://x').searchParams;
}

describe('CohortsScreen (issue 18 "the cohort list")', () => {
  it('sorts both ways, searches by name, pages, and shows archived ones only when asked', async () => {
    const server = fakeServer({
      ...acmeSession('purple_owner'),
      [`GET /v1/report/client/${ACME}/cohort`]: (): { body: CohortListReply } => {
        const q = lastListQuery(server.calls);
        const items = q.get('show_archived') === 'true' ? [base, archived] : [base];
        // 45 in all: three pages of 20.
        return { body: { items, total: 45, page: Number(q.get('page') ?? 1), page_size: 20 } };
      },
    });
    vi.stubGlobal('fetch', server.fetchFn);
    await loadSession();
    const user = userEvent.setup();
    renderRoutes([{ path: '/cohorts', element: <CohortsScreen /> }], `/cohorts?client_id=${ACME}`);
    const wait = { timeout: 10_000 };
    const table = await screen.findByRole('table', { name: 'Cohorts' }, wait);
    expect(within(table).getByRole('link', { name: 'Directors' })).toBeInTheDocument();
    expect(within(table).getByLabelText('Status: Active')).toBeInTheDocument();
    expect(within(table).queryByText('Old webinar')).toBeNull();
    let q = lastListQuery(server.calls);
    expect([q.get('sort_field'), q.get('order'), q.get('page'), q.get('show_archived')]).toEqual([
      'created_at',
      'desc',
      '1',
      'false',
    ]);

    // Sorting by name: A-Z first, then Z-A; the header says which.
    await user.click(within(table).getByRole('button', { name: 'Cohort' }));
    await waitFor(() => expect(lastListQuery(server.calls).get('sort_field')).toBe('name'));
    expect(lastListQuery(server.calls).get('order')).toBe('asc');
    expect(screen.getByRole('columnheader', { name: 'Cohort' })).toHaveAttribute('aria-sort', 'ascending');
    await user.click(screen.getByRole('button', { name: 'Cohort' }));
    await waitFor(() => expect(lastListQuery(server.calls).get('order')).toBe('desc'));
    expect(screen.getByRole('columnheader', { name: 'Cohort' })).toHaveAttribute('aria-sort', 'descending');

    // Paging: 45 cohorts are three pages.
    await user.click(await screen.findByRole('button', { name: 'Page 2' }));
    await waitFor(() => expect(lastListQuery(server.calls).get('page')).toBe('2'));

    // The name search goes to the server (debounced) and starts again from the first page.
    await user.type(screen.getByLabelText('Search by name'), 'Dir');
    await waitFor(() => expect(lastListQuery(server.calls).get('name')).toBe('Dir'), wait);
    q = lastListQuery(server.calls);
    expect(q.get('page')).toBe('1');

    // Show archived: the archived cohort appears with its badge and a Restore action.
    await user.click(screen.getByLabelText('Show archived'));
    await waitFor(() => expect(lastListQuery(server.calls).get('show_archived')).toBe('true'));
    expect(await screen.findByRole('link', { name: 'Old webinar' }, wait)).toBeInTheDocument();
    expect(screen.getByLabelText('Status: Archived')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Restore Old webinar' })).toBeInTheDocument();
  });

  it('pause and restore each ask for confirmation first; Cancel changes nothing', async () => {
    const changes: { url: string; body: unknown }[] = [];
    const server = fakeServer({
      ...acmeSession('purple_owner'),
      [`GET /v1/report/client/${ACME}/cohort`]: {
        body: { items: [base, archived], total: 2, page: 1, page_size: 20 },
      },
      [`PATCH /v1/rest/cohort/${base.id}/pause`]: (init) => {
        changes.push({ url: 'pause', body: JSON.parse(String(init?.body)) });
        return { body: { ...base, status: 'paused' } };
      },
      [`PATCH /v1/rest/cohort/${archived.id}/archive`]: (init) => {
        changes.push({ url: 'archive', body: JSON.parse(String(init?.body)) });
        return { body: { ...archived, status: 'paused', status_before_archive: null } };
      },
    });
    vi.stubGlobal('fetch', server.fetchFn);
    await loadSession();
    const user = userEvent.setup();
    renderRoutes([{ path: '/cohorts', element: <CohortsScreen /> }], `/cohorts?client_id=${ACME}`);
    await user.click(await screen.findByRole('button', { name: 'Pause Directors' }, { timeout: 10_000 }));
    let dialog = await screen.findByRole('dialog', { name: 'Pause Directors?' });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(changes).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Pause Directors' }));
    dialog = await screen.findByRole('dialog', { name: 'Pause Directors?' });
    await user.click(within(dialog).getByRole('button', { name: 'Pause' }));
    await waitFor(() => expect(changes).toEqual([{ url: 'pause', body: { paused: true } }]));

    await user.click(screen.getByRole('button', { name: 'Restore Old webinar' }));
    dialog = await screen.findByRole('dialog', { name: 'Restore Old webinar?' });
    await user.click(within(dialog).getByRole('button', { name: 'Restore' }));
    await waitFor(() => expect(changes.at(-1)).toEqual({ url: 'archive', body: { archived: false } }));
  });

  it('an SDR (no cohort.write) sees the list without New cohort or the status actions', async () => {
    const server = fakeServer({
      ...acmeSession('yellow_sdr'),
      [`GET /v1/report/client/${ACME}/cohort`]: { body: { items: [base], total: 1, page: 1, page_size: 20 } },
    });
    vi.stubGlobal('fetch', server.fetchFn);
    await loadSession();
    renderRoutes([{ path: '/cohorts', element: <CohortsScreen /> }], `/cohorts?client_id=${ACME}`);
    expect(await screen.findByRole('link', { name: 'Directors' }, { timeout: 10_000 })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'New cohort' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Pause Directors' })).toBeNull();
  });
});
