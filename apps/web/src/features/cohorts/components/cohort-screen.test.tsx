import { notifications } from '@mantine/notifications';
import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Cohort, CohortSegmentReply } from '@rally/shared/schemas/cohorts';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import { CohortScreen } from './cohort-screen.tsx';

const ACME = CLIENT_IDS.acme;
const ID = '00000000-0000-4000-8000-00000000c001';
const running: Cohort = {
  id: ID,
  client_id: ACME,
  name: 'Directors',
  source_kind: 'filter',
  crm_list_id: null,
  crm_list_name: null,
  filters: { title: 'Director' },
  status: 'active',
  status_before_archive: null,
  content_id: null,
  size: 0,
  accounts: 0,
  sync_state: 'running',
  sync_progress: { done: 0, total: 1 },
  sync_error: null,
  last_synced_at: null,
  impressions: 0,
  clicks: 0,
  views: 0,
  supers: 0,
  created_at: '2026-11-26T10:00:00.000Z',
  updated_at: '2026-11-26T10:00:00.000Z',
};
const member = {
  id: '00000000-0000-4000-8000-00000000d001',
  prospect_id: '00000000-0000-4000-8000-00000000d002',
  target_id: '00000000-0000-4000-8000-00000000d003',
  first_name: 'Dana',
  last_name: 'Director',
  email: 'dana@example.com',
  title: 'Director of Sales',
  company_id: null,
  company_name: null,
  impressions: 0,
  clicks: 0,
  views: 0,
  super_date: null,
  ad_tag: '/t/abc/ad/300x250.png',
  click_tag: '/t/abc/c',
};

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

describe('CohortScreen', () => {
  it('asks for the members again when the sync it was showing finishes (no "Synced" beside an empty list)', async () => {
    // The first read of the cohort finds its sync running and the members empty; the next poll finds
    // the sync finished, and from then on the members are there.
    let cohortReads = 0;
    const server = fakeServer({
      ...acmeSession('purple_owner'),
      [`GET /v1/api/cohort/${ID}`]: () => {
        cohortReads += 1;
        return {
          body:
            cohortReads === 1
              ? running
              : { ...running, sync_state: 'done', size: 1, last_synced_at: '2026-11-26T10:00:05.000Z' },
        };
      },
      'GET /v1/rest/campaign': { body: { items: [], total: 0, page: 1, page_size: 100 } },
      [`GET /v1/rest/cohort/${ID}/segment`]: (): { body: CohortSegmentReply } => ({
        body: {
          items: cohortReads > 1 ? [member] : [],
          total: cohortReads > 1 ? 1 : 0,
          page: 1,
          page_size: 20,
        },
      }),
    });
    vi.stubGlobal('fetch', server.fetchFn);
    await loadSession();
    renderRoutes([{ path: '/cohorts/:id', element: <CohortScreen /> }], `/cohorts/${ID}?client_id=${ACME}`);
    // The screen asks for several panels at once; a loaded machine takes its time.
    const wait = { timeout: 10_000 };
    expect(await screen.findByText(/No members yet/, undefined, wait)).toBeInTheDocument();
    expect(await screen.findByText(/^Synced /, undefined, wait)).toBeInTheDocument();
    expect(await screen.findByRole('cell', { name: 'Director of Sales' }, wait)).toBeInTheDocument();
    expect(screen.queryByText(/No members yet/)).toBeNull();
  });
});
