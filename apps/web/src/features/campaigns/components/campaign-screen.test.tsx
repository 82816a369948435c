import { notifications } from '@mantine/notifications';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Campaign } from '@rally/shared/schemas/campaigns';
import type { Cohort } from '@rally/shared/schemas/cohorts';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import { CampaignScreen, NewCampaignScreen } from './campaign-screen.tsx';

const ACME = CLIENT_IDS.acme;
const ID = '00000000-0000-4000-8000-0000000ca001';
const COHORT = '00000000-0000-4000-8000-00000000c001';
const CONTENT = '00000000-0000-4000-8000-00000000e001';
const campaign: Campaign = {
  id: ID,
  client_id: ACME,
  cohort_id: COHORT,
  cohort_name: 'Directors',
  name: 'Winter push',
  status: 'draft',
  starts_on: '2026-12-01',
  ends_on: '2026-12-31',
  live: false,
  content_id: CONTENT,
  content_name: 'Winter ads',
  download_url: `/v1/download/${ID}`,
  created_at: '2026-11-26T10:00:00.000Z',
  updated_at: '2026-11-26T10:00:00.000Z',
};
const cohort: Cohort = {
  id: COHORT,
  client_id: ACME,
  name: 'Directors',
  source_kind: 'filter',
  crm_list_id: null,
  crm_list_name: null,
  filters: {},
  status: 'active',
  status_before_archive: null,
  content_id: CONTENT,
  size: 3,
  accounts: 2,
  sync_state: 'done',
  sync_progress: null,
  sync_error: null,
  last_synced_at: null,
  impressions: 0,
  clicks: 0,
  views: 0,
  supers: 0,
  created_at: '2026-11-26T10:00:00.000Z',
  updated_at: '2026-11-26T10:00:00.000Z',
};
const contentList = {
  body: { items: [{ id: CONTENT, name: 'Winter ads', status: 'published', is_archived: false }] },
};

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

const bodyOf = (init?: RequestInit) => JSON.parse(String(init?.body)) as Record<string, unknown>;

describe('CampaignScreen', () => {
  it('edits the flight and status, shows the field the server refused, and downloads the ads', async () => {
    const patches: Record<string, unknown>[] = [];
    let current = campaign;
    const server = fakeServer({
      ...acmeSession('green_manager'),
      [`GET /v1/rest/campaign/${ID}`]: () => ({ body: current }),
      'GET /sc/content': contentList,
      [`PATCH /v1/rest/campaign/${ID}`]: (init) => {
        const body = bodyOf(init);
        patches.push(body);
        if (body.ends_on === '2026-12-20')
          return {
            status: 422,
            body: {
              message: 'body.ends_on: must be after starts_on',
              errors: [{ field: 'body.ends_on', message: 'must be after starts_on (2026-12-01)' }],
            },
          };
        current = { ...current, ...body, updated_at: '2026-11-26T11:00:00.000Z' };
        return { body: current };
      },
      [`GET /v1/download/${ID}`]: { body: 'zip', headers: { 'content-type': 'application/zip' } },
    });
    vi.stubGlobal('fetch', server.fetchFn);
    const createObjectURL = vi.fn(() => 'blob:ads');
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() }));
    await loadSession();
    renderRoutes(
      [{ path: '/campaigns/:id', element: <CampaignScreen /> }],
      `/campaigns/${ID}?client_id=${ACME}`,
    );
    expect(await screen.findByRole('heading', { name: 'Winter push' })).toBeInTheDocument();
    expect(screen.getByLabelText('Status: Draft')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: '← Directors' })).toHaveAttribute(
      'href',
      `/cohorts/${COHORT}?client_id=${ACME}`,
    );

    const user = userEvent.setup();
    const last = screen.getByLabelText(/Last day/);
    await user.clear(last);
    await user.type(last, '2026-12-20');
    await user.click(screen.getByRole('button', { name: 'Save changes' }));
    expect(await screen.findByText('This must be after starts_on (2026-12-01)')).toBeInTheDocument();

    await user.clear(last);
    await user.type(last, '2027-01-15');
    await user.click(screen.getByText('Active'));
    await user.click(screen.getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(screen.getByLabelText('Status: Active')).toBeInTheDocument());
    expect(patches.at(-1)).toMatchObject({ ends_on: '2027-01-15', status: 'active', content_id: CONTENT });

    await user.click(screen.getByRole('button', { name: /Download ads/ }));
    await waitFor(() => expect(createObjectURL).toHaveBeenCalled());
    expect(server.calls.some((c) => c.url === `/v1/download/${ID}`)).toBe(true);
  });

  it('without content the download is off; an SDR sees the flight read-only', async () => {
    const server = fakeServer({
      ...acmeSession('yellow_sdr'),
      [`GET /v1/rest/campaign/${ID}`]: {
        body: { ...campaign, content_id: null, content_name: null, download_url: null },
      },
    });
    vi.stubGlobal('fetch', server.fetchFn);
    await loadSession();
    renderRoutes(
      [{ path: '/campaigns/:id', element: <CampaignScreen /> }],
      `/campaigns/${ID}?client_id=${ACME}`,
    );
    expect(await screen.findByRole('button', { name: /Download ads/ })).toBeDisabled();
    expect(screen.getByText('Choose content to download its ads')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Save changes' })).toBeNull();
    expect(screen.getByText('First day')).toBeInTheDocument();
  });

  it('says so when the campaign is not found', async () => {
    const server = fakeServer({ ...acmeSession('green_manager') });
    vi.stubGlobal('fetch', server.fetchFn);
    await loadSession();
    renderRoutes(
      [{ path: '/campaigns/:id', element: <CampaignScreen /> }],
      `/campaigns/${ID}?client_id=${ACME}`,
    );
    expect(await screen.findByText('Campaign not found')).toBeInTheDocument();
  });
});

describe('NewCampaignScreen', () => {
  it("starts from the cohort's content, checks the days, then creates and opens the campaign", async () => {
    const posts: Record<string, unknown>[] = [];
    const server = fakeServer({
      ...acmeSession('green_manager'),
      [`GET /v1/api/cohort/${COHORT}`]: { body: cohort },
      'GET /sc/content': contentList,
      'POST /v1/rest/campaign': (init) => {
        posts.push(bodyOf(init));
        return { status: 201, body: campaign };
      },
      [`GET /v1/rest/campaign/${ID}`]: { body: campaign },
    });
    vi.stubGlobal('fetch', server.fetchFn);
    await loadSession();
    renderRoutes(
      [
        { path: '/cohorts/:id/campaigns/new', element: <NewCampaignScreen /> },
        { path: '/campaigns/:id', element: <CampaignScreen /> },
      ],
      `/cohorts/${COHORT}/campaigns/new?client_id=${ACME}`,
    );
    expect(await screen.findByRole('heading', { name: 'New campaign' })).toBeInTheDocument();
    expect(screen.getByLabelText(/^Name/)).toHaveValue('Directors flight');
    const user = userEvent.setup();
    const first = screen.getByLabelText(/First day/);
    const last = screen.getByLabelText(/Last day/);
    await user.clear(first);
    await user.type(first, '2026-12-10');
    await user.clear(last);
    await user.type(last, '2026-12-01');
    await user.click(screen.getByRole('button', { name: 'Create campaign' }));
    expect(await screen.findByText('The last day must be after the first day')).toBeInTheDocument();
    expect(posts).toHaveLength(0);
    await user.clear(last);
    await user.type(last, '2026-12-31');
    await user.click(screen.getByRole('button', { name: 'Create campaign' }));
    expect(await screen.findByRole('heading', { name: 'Winter push' })).toBeInTheDocument();
    expect(posts[0]).toEqual({
      cohort_id: COHORT,
      name: 'Directors flight',
      starts_on: '2026-12-10',
      ends_on: '2026-12-31',
      status: 'draft',
      content_id: CONTENT,
    });
  });
});
