import { notifications } from '@mantine/notifications';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PbaPeopleReply } from '@rally/shared/schemas/campaigns';
import type { Cohort } from '@rally/shared/schemas/cohorts';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import { CreateCohortScreen } from './create-cohort-screen.tsx';

const ACME = CLIENT_IDS.acme;
const ID = '00000000-0000-4000-8000-00000000c009';
const CSV = 'email,first_name,last_name,company\nrita@acme.example,Rita,Reyes,Acme\nnope,Sam,Stone,\n';
const check: PbaPeopleReply = {
  total: 2,
  usable: 1,
  unusable: 1,
  columns: {
    email: 'email',
    first_name: 'first_name',
    last_name: 'last_name',
    company: 'company',
    title: null,
  },
  ignored_columns: [],
  rows: [
    {
      row: 1,
      usable: true,
      match: 'email',
      reasons: [],
      email: 'rita@acme.example',
      first_name: 'Rita',
      last_name: 'Reyes',
      company: 'Acme',
      title: '',
    },
    {
      row: 2,
      usable: false,
      match: null,
      reasons: ['email is not a valid e-mail address'],
      email: 'nope',
      first_name: 'Sam',
      last_name: 'Stone',
      company: '',
      title: '',
    },
  ],
};

const made: Cohort = {
  id: ID,
  client_id: ACME,
  name: 'Expo list',
  source_kind: 'csv',
  crm_list_id: null,
  crm_list_name: null,
  filters: {},
  status: 'active',
  status_before_archive: null,
  content_id: null,
  size: 1,
  accounts: 1,
  sync_state: 'done',
  sync_progress: { done: 1, total: 1 },
  sync_error: null,
  last_synced_at: '2026-11-26T10:00:00.000Z',
  impressions: 0,
  clicks: 0,
  views: 0,
  supers: 0,
  created_at: '2026-11-26T10:00:00.000Z',
  updated_at: '2026-11-26T10:00:00.000Z',
};

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

describe('CreateCohortScreen: CSV of people', () => {
  it('uploads a list, shows the usable and unusable rows with reasons, and creates the cohort', async () => {
    const sent: Record<string, unknown>[] = [];
    const server = fakeServer({
      ...acmeSession('green_manager'),
      'GET /sc/content': { body: { items: [] } },
      'POST /v1/rest/content/parse_pba_data': (init) => {
        sent.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
        return { body: check };
      },
      'POST /v1/rest/content/pba': (init) => {
        sent.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
        return {
          status: 201,
          body: { cohort: made, members: 1, skipped: 1 },
        };
      },
    });
    vi.stubGlobal('fetch', server.fetchFn);
    await loadSession();
    renderRoutes(
      [
        { path: '/cohorts/new', element: <CreateCohortScreen /> },
        { path: '/cohorts/:id', element: <p>Cohort page</p> },
      ],
      `/cohorts/new?client_id=${ACME}`,
    );
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText(/^Name/), 'Expo list');
    await user.click(screen.getByText('CSV of people'));
    const create = screen.getByRole('button', { name: 'Create cohort' });
    expect(create).toBeDisabled();
    expect(screen.getByText('Choose a file to see which people can get ads.')).toBeInTheDocument();
    const input = document.querySelector<HTMLInputElement>('input[type="file"]')!;
    await user.upload(input, new File([CSV], 'people.csv', { type: 'text/csv' }));
    expect(await screen.findByTestId('people-check')).toHaveTextContent('1 usable');
    expect(screen.getByTestId('people-check')).toHaveTextContent('1 not usable');
    expect(screen.getByText('email is not a valid e-mail address')).toBeInTheDocument();
    expect(screen.getByText('By email')).toBeInTheDocument();
    expect(sent[0]).toEqual({ csv: CSV });
    await waitFor(() => expect(create).toBeEnabled());
    await user.click(create);
    expect(await screen.findByText('Cohort page')).toBeInTheDocument();
    expect(sent[1]).toEqual({ name: 'Expo list', csv: CSV, content_id: null });
  });
});
