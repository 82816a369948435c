import { notifications } from '@mantine/notifications';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BUILT_IN_ROLES } from '@rally/shared';
import type { BuiltInRole } from '@rally/shared';
import { getAuthState, loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderWithRouter } from '../../../testing/render.tsx';
import { ClientsScreen } from './clients-screen.tsx';
import { selfFixture } from '../../../testing/fixtures.ts';

const NORTHWIND = '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c000001';
const ACME = '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c000002';
const INITECH = '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c000009';

type Row = { id: string; name: string; parent_id: string | null; role: BuiltInRole; is_default: boolean };

async function signIn(
  role: BuiltInRole,
  routes: Parameters<typeof fakeServer>[0] = {},
  acmeRole: BuiltInRole = 'purple_owner',
) {
  const rows: Row[] = [
    { id: ACME, name: 'Acme Robotics', parent_id: NORTHWIND, role: acmeRole, is_default: false },
    { id: NORTHWIND, name: 'Northwind Agency', parent_id: null, role, is_default: true },
  ];
  const self = () =>
    selfFixture(
      rows.map((r) => ({
        client_id: r.id,
        client_name: r.name,
        is_default: r.is_default,
        role: r.role,
        permissions: [...BUILT_IN_ROLES[r.role]],
      })),
    );
  const server = fakeServer({
    'GET /v1/api/user/self': () => ({ body: self() }),
    'GET /v1/rest/client': () => ({ body: rows }),
    'GET /v1/rest/client/overview': () => ({ body: overview(rows) }),
    'POST /v1/rest/client': (init) => {
      const { name, parent_id } = JSON.parse(String(init?.body)) as {
        name: string;
        parent_id: string | null;
      };
      const row: Row = { id: INITECH, name, parent_id, role: 'purple_owner', is_default: false };
      rows.push(row);
      return { status: 201, body: row };
    },
    [`/v1/rest/client/${NORTHWIND}/integrations`]: { body: [] },
    [`/v1/rest/client/${ACME}/integrations`]: { body: [] },
    ...routes,
  });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  return server;
}

/** The agency view of `rows`: Acme busy and at risk, Northwind quiet and healthy. */
const overview = (rows: Row[]) => ({
  days: 30,
  clients: rows.map((r) =>
    r.id === ACME
      ? {
          ...r,
          superprospects: 1234,
          spend_cents: 617_000,
          pipeline_cents: 250_000_000,
          currency: 'USD',
          health: 'at_risk',
          attention_count: 3,
          attention: {
            message: 'Salesforce is inactive.',
            path: '/settings/connections',
            label: 'Reconnect Salesforce',
          },
        }
      : {
          ...r,
          superprospects: r.role === 'grey_viewer' ? null : 0,
          spend_cents: null,
          pipeline_cents: 0,
          currency: 'USD',
          health: 'healthy',
          attention_count: 0,
          attention: null,
        },
  ),
});

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

describe('ClientsScreen', () => {
  it("lists the user's clients with their role, the current one highlighted", async () => {
    await signIn('purple_owner');
    renderWithRouter(<ClientsScreen />, `/clients?client_id=${NORTHWIND}`);
    const table = await screen.findByRole('table', { name: 'Your clients' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => r.querySelector('td')?.textContent)).toEqual([
      'Acme RoboticsownerPart of Northwind Agency',
      'Northwind AgencyCurrentowner',
    ]);
    const current = within(table).getByRole('row', { name: /Northwind Agency Current/ });
    expect(current).toHaveAttribute('aria-current', 'true');
    expect(within(current).getByText('You are here')).toBeInTheDocument();
    expect(within(current).getByText('owner').closest('[data-colour]')).toHaveAttribute(
      'data-colour',
      'purple',
    );
  });

  it('per client: superprospects, spend and pipeline abbreviated, health, and what needs attention with a link into it (issue 42 item 13)', async () => {
    await signIn('purple_owner');
    renderWithRouter(<ClientsScreen />, `/clients?client_id=${NORTHWIND}`);
    const table = await screen.findByRole('table', { name: 'Your clients' });
    const acme = within(table).getByRole('row', { name: /Acme Robotics/ });
    const cells = within(acme)
      .getAllByRole('cell')
      .map((c) => c.textContent);
    expect(cells.slice(1, 5)).toEqual(['1,234', '$6.2K', '$2.5MM', 'At risk']);
    expect(cells[5]).toContain('Salesforce is inactive.');
    expect(cells[5]).toContain('and 2 more');
    expect(
      within(acme).getByRole('link', { name: /^Reconnect Salesforce\s*in Acme Robotics$/ }),
    ).toHaveAttribute('href', `/settings/connections?client_id=${ACME}`);
    const northwind = within(table).getByRole('row', { name: /^Northwind Agency/ });
    // No billing permission there: a dash, not $0.
    expect(
      within(northwind)
        .getAllByRole('cell')
        .map((c) => c.textContent)
        .slice(1, 6),
    ).toEqual(['0', '—', '$0', 'Healthy', 'Nothing']);
  });

  it('Switch goes to /feed with the chosen client_id', async () => {
    await signIn('purple_owner');
    const user = userEvent.setup();
    const { router } = renderWithRouter(<ClientsScreen />, `/clients?client_id=${NORTHWIND}`);
    await user.click(await screen.findByRole('button', { name: 'Switch to Acme Robotics' }));
    expect(router.state.location.pathname).toBe('/feed');
    expect(router.state.location.search).toBe(`?client_id=${ACME}`);
  });

  it('a new client shows in the agency view at once, before the overview comes back', async () => {
    const server = await signIn('purple_owner');
    // After the creation the overview never answers (a busy server: it took over 30 s in e2e).
    let created = false;
    vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input instanceof Request ? input.url : input);
      if (created && url.includes('/v1/rest/client/overview')) return new Promise<Response>(() => {});
      if (init?.method === 'POST' && /\/v1\/rest\/client$/.test(url)) created = true;
      return server.fetchFn(input, init);
    });
    const user = userEvent.setup();
    renderWithRouter(<ClientsScreen />, `/clients?client_id=${NORTHWIND}`);
    const table = await screen.findByRole('table', { name: 'Your clients' });
    expect(within(table).queryByRole('row', { name: /^Initech/ })).toBeNull();
    const form = screen.getByRole('region', { name: 'New client' });
    await user.type(within(form).getByLabelText('Client name'), 'Initech');
    await user.click(within(form).getByRole('button', { name: 'Create client' }));
    const row = await within(table).findByRole('row', { name: /^Initech/ });
    expect(row).toHaveTextContent('Part of Northwind Agency');
  });

  it('creates a client and refreshes the auth state, so it can be switched to', async () => {
    const server = await signIn('purple_owner');
    const user = userEvent.setup();
    renderWithRouter(<ClientsScreen />, `/clients?client_id=${NORTHWIND}`);
    const form = screen.getByRole('region', { name: 'New client' });
    await user.type(within(form).getByLabelText('Client name'), '  Initech ');
    // The parent is explicit (issue 42 item 13): the top of the current tree where the user may create.
    expect(within(form).getByLabelText('Create under')).toHaveValue('Northwind Agency');
    await user.click(within(form).getByRole('button', { name: 'Create client' }));

    expect(
      await screen.findByText('Initech was created under Northwind Agency. You are its owner.'),
    ).toBeInTheDocument();
    const post = server.calls.find((c) => c.init?.method === 'POST' && c.url === '/v1/rest/client');
    expect(JSON.parse(String(post?.init?.body))).toEqual({ name: 'Initech', parent_id: NORTHWIND });
    expect(
      await screen.findByRole('button', { name: 'Switch to Initech' }, { timeout: 3000 }),
    ).toBeInTheDocument();
    expect(getAuthState().clients.map((c) => c.name)).toContain('Initech');
    expect(getAuthState().user?.clients.map((c) => c.client_id)).toContain(INITECH);
    expect(within(form).getByLabelText('Client name')).toHaveValue('');
  });

  it('in a client under the agency, a new client still goes under the agency unless another parent is chosen', async () => {
    const server = await signIn('purple_owner');
    const user = userEvent.setup();
    renderWithRouter(<ClientsScreen />, `/clients?client_id=${ACME}`);
    const form = screen.getByRole('region', { name: 'New client' });
    const under = within(form).getByLabelText('Create under');
    expect(under).toHaveValue('Northwind Agency');
    await user.click(under);
    await user.click(await screen.findByText('No parent (a client of its own)', {}, { timeout: 15_000 }));
    expect(within(form).getByText('It stands on its own, under no other client.')).toBeInTheDocument();
    await user.type(within(form).getByLabelText('Client name'), 'Solo');
    await user.click(within(form).getByRole('button', { name: 'Create client' }));
    await waitFor(() =>
      expect(
        server.calls.some(
          (c) => c.init?.method === 'POST' && String(c.init.body).includes('"parent_id":null'),
        ),
      ).toBe(true),
    );
  });

  it('checks the name before calling the server', async () => {
    const server = await signIn('purple_owner');
    const user = userEvent.setup();
    renderWithRouter(<ClientsScreen />, `/clients?client_id=${NORTHWIND}`);
    const form = screen.getByRole('region', { name: 'New client' });
    await user.click(within(form).getByRole('button', { name: 'Create client' }));
    expect(await within(form).findByText('Enter a name for the client')).toBeInTheDocument();
    expect(server.calls.some((c) => c.init?.method === 'POST')).toBe(false);
  });

  it('shows no New client form when no client of the user allows creating clients', async () => {
    await signIn('green_manager', {}, 'yellow_sdr');
    renderWithRouter(<ClientsScreen />, `/clients?client_id=${NORTHWIND}`);
    await screen.findByRole('table', { name: 'Your clients' });
    expect(screen.queryByRole('region', { name: 'New client' })).not.toBeInTheDocument();
  });

  it('shows an error with a way to try again', async () => {
    await signIn('purple_owner');
    // The list fails after sign-in succeeded with it.
    const failing = fakeServer({
      'GET /v1/rest/client/overview': { status: 400, body: { message: 'Try later.' } },
    });
    vi.stubGlobal('fetch', failing.fetchFn);
    renderWithRouter(<ClientsScreen />, `/clients?client_id=${NORTHWIND}`);
    expect(await screen.findByText('Could not load your clients')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });

  it('shows an empty state', async () => {
    await signIn('purple_owner');
    vi.stubGlobal(
      'fetch',
      fakeServer({ 'GET /v1/rest/client/overview': { body: { days: 30, clients: [] } } }).fetchFn,
    );
    renderWithRouter(<ClientsScreen />, `/clients?client_id=${NORTHWIND}`);
    expect(await screen.findByText('No clients yet')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('status', { name: 'Loading clients' })).toBeNull());
  });
});
