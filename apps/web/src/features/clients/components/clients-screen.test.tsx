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

async function signIn(role: BuiltInRole, routes: Parameters<typeof fakeServer>[0] = {}) {
  const rows: Row[] = [
    { id: ACME, name: 'Acme Robotics', parent_id: NORTHWIND, role: 'purple_owner', is_default: false },
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
    'POST /v1/rest/client': (init) => {
      const { name } = JSON.parse(String(init?.body)) as { name: string };
      const row: Row = { id: INITECH, name, parent_id: NORTHWIND, role: 'purple_owner', is_default: false };
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
      'Acme RoboticsPart of Northwind Agency',
      'Northwind AgencyCurrentDefault',
    ]);
    const current = within(table).getByRole('row', { name: /Northwind Agency Current/ });
    expect(current).toHaveAttribute('aria-current', 'true');
    expect(within(current).getByText('You are here')).toBeInTheDocument();
    expect(within(current).getByText('owner').closest('[data-colour]')).toHaveAttribute(
      'data-colour',
      'purple',
    );
  });

  it('Switch goes to /feed with the chosen client_id', async () => {
    await signIn('purple_owner');
    const user = userEvent.setup();
    const { router } = renderWithRouter(<ClientsScreen />, `/clients?client_id=${NORTHWIND}`);
    await user.click(await screen.findByRole('button', { name: 'Switch to Acme Robotics' }));
    expect(router.state.location.pathname).toBe('/feed');
    expect(router.state.location.search).toBe(`?client_id=${ACME}`);
  });

  it('creates a client and refreshes the auth state, so it can be switched to', async () => {
    const server = await signIn('purple_owner');
    const user = userEvent.setup();
    renderWithRouter(<ClientsScreen />, `/clients?client_id=${NORTHWIND}`);
    const form = screen.getByRole('region', { name: 'New client' });
    await user.type(within(form).getByLabelText('Client name'), '  Initech ');
    await user.click(within(form).getByRole('button', { name: 'Create client' }));

    expect(await screen.findByText('Initech was created. You are its owner.')).toBeInTheDocument();
    const post = server.calls.find((c) => c.init?.method === 'POST' && c.url === '/v1/rest/client');
    expect(JSON.parse(String(post?.init?.body))).toEqual({ name: 'Initech' });
    expect(
      await screen.findByRole('button', { name: 'Switch to Initech' }, { timeout: 3000 }),
    ).toBeInTheDocument();
    expect(getAuthState().clients.map((c) => c.name)).toContain('Initech');
    expect(getAuthState().user?.clients.map((c) => c.client_id)).toContain(INITECH);
    expect(within(form).getByLabelText('Client name')).toHaveValue('');
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

  it('shows no New client form without client.write', async () => {
    await signIn('green_manager');
    renderWithRouter(<ClientsScreen />, `/clients?client_id=${NORTHWIND}`);
    await screen.findByRole('table', { name: 'Your clients' });
    expect(screen.queryByRole('region', { name: 'New client' })).not.toBeInTheDocument();
  });

  it('shows an error with a way to try again', async () => {
    await signIn('purple_owner');
    // The list fails after sign-in succeeded with it.
    const failing = fakeServer({ 'GET /v1/rest/client': { status: 400, body: { message: 'Try later.' } } });
    vi.stubGlobal('fetch', failing.fetchFn);
    renderWithRouter(<ClientsScreen />, `/clients?client_id=${NORTHWIND}`);
    expect(await screen.findByText('Could not load your clients')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });

  it('shows an empty state', async () => {
    await signIn('purple_owner');
    vi.stubGlobal('fetch', fakeServer({ 'GET /v1/rest/client': { body: [] } }).fetchFn);
    renderWithRouter(<ClientsScreen />, `/clients?client_id=${NORTHWIND}`);
    expect(await screen.findByText('No clients yet')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('status', { name: 'Loading clients' })).toBeNull());
  });
});
