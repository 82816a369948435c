import { notifications } from '@mantine/notifications';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BUILT_IN_ROLES } from '@rally/shared';
import type { SalesRep } from '@rally/shared/schemas/integrations';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import { SalesRepsScreen } from './sales-reps-screen.tsx';

const ACME = CLIENT_IDS.acme;
const rep = (id: string, first: string, photo: string | null): SalesRep => ({
  id,
  client_id: ACME,
  integration_id: 1,
  first_name: first,
  last_name: 'Rep',
  email: `${first.toLowerCase()}@example.com`,
  email_invalid: false,
  photo_url: photo,
  title: 'SDR',
  selected: true,
  active_targets_count: 4,
  super_targets_count: 1,
  company_name: '',
  calendar_url: '',
});
const ADA = '00000000-0000-4000-8000-00000000000a';
const ZOE = '00000000-0000-4000-8000-00000000000b';

async function signIn(role: keyof typeof BUILT_IN_ROLES, routes: Parameters<typeof fakeServer>[0] = {}) {
  const server = fakeServer({
    ...acmeSession(role),
    'GET /sc/sdr': { body: [rep(ADA, 'Ada', null), rep(ZOE, 'Zoe', 'https://img.example/zoe.png')] },
    [`POST /sc/sdr/${ADA}`]: (init) => ({
      body: { ...rep(ADA, 'Ada', null), ...(JSON.parse(String(init?.body)) as object) },
    }),
    ...routes,
  });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  return server;
}

const render = () =>
  renderRoutes(
    [{ path: '/client-settings/sales-reps', element: <SalesRepsScreen /> }],
    `/client-settings/sales-reps?client_id=${ACME}`,
  );

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

describe('SalesRepsScreen', () => {
  it('lists reps photos first (SPEC.md §5), with their counts; a viewer cannot edit', async () => {
    await signIn('grey_viewer');
    render();
    const table = await screen.findByRole('table', { name: 'Sales reps' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => r.getAttribute('aria-label'))).toEqual(['Zoe Rep', 'Ada Rep']);
    expect(within(rows[1]!).getByText('4')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Edit/ })).toBeNull();
  });

  it('without the upload endpoint (404) the drawer offers a pasted photo URL instead, and saves it', async () => {
    const server = await signIn('purple_owner', {
      [`POST /v1/rest/client/${ACME}/uploads`]: { status: 404, body: { message: 'Not found' } },
    });
    const user = userEvent.setup();
    render();
    await user.click(await screen.findByRole('button', { name: 'Edit Ada Rep' }));
    const drawer = await screen.findByRole('dialog', { name: 'Edit Ada Rep' });
    const input = drawer.querySelector('input[type="file"]') as HTMLInputElement;
    await user.upload(input, new File([new Uint8Array([137, 80, 78, 71])], 'ada.png', { type: 'image/png' }));
    const url = await within(drawer).findByRole('textbox', { name: 'Photo URL' });
    expect(within(drawer).getByText(/Photo upload is not available/)).toBeInTheDocument();
    await user.type(url, 'https://img.example/ada.png');
    await user.clear(within(drawer).getByRole('textbox', { name: 'Title' }));
    await user.type(within(drawer).getByRole('textbox', { name: 'Title' }), 'Team lead');
    await user.click(within(drawer).getByRole('button', { name: 'Save' }));
    await waitFor(() =>
      expect(server.calls.some((c) => c.init?.method === 'POST' && c.url === `/sc/sdr/${ADA}`)).toBe(true),
    );
    const post = server.calls.find((c) => c.init?.method === 'POST' && c.url === `/sc/sdr/${ADA}`);
    expect(JSON.parse(String(post?.init?.body))).toMatchObject({
      title: 'Team lead',
      photo_url: 'https://img.example/ada.png',
    });
  });

  it('error: explains and offers to try again', async () => {
    await signIn('purple_owner', { 'GET /sc/sdr': { status: 403, body: { message: 'Nope' } } });
    render();
    expect(await screen.findByText('Could not load sales reps')).toBeInTheDocument();
  });

  it('empty: says where reps come from', async () => {
    await signIn('purple_owner', { 'GET /sc/sdr': { body: [] } });
    render();
    expect(await screen.findByText('No sales reps yet')).toBeInTheDocument();
  });
});
