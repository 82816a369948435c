import { screen, waitFor } from '@testing-library/react';
import { APP_ROUTES } from '@rally/shared';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RouteObject } from 'react-router';
import { loadSession, resetAuth, saveRedirect } from '../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../testing/render.tsx';
import { buildRoutes } from './router.tsx';
import { selfFixture } from '../testing/fixtures.ts';

const ACME = '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c000002';
const GLOBEX = '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c000003';

function paths(routes: RouteObject[]): string[] {
  return routes.flatMap((r) => [...(r.path ? [r.path] : []), ...paths(r.children ?? [])]);
}

const self = selfFixture([
  {
    client_id: ACME,
    client_name: 'Acme',
    is_default: true,
    role: 'purple_owner',
    permissions: ['client.read', 'billing_details.read'],
  },
  {
    client_id: GLOBEX,
    client_name: 'Globex',
    is_default: false,
    role: 'yellow_sdr',
    permissions: ['reports.read'],
  },
]);
const integration = (clientId: string) => ({
  client_id: clientId,
  created_at: '2026-11-01T00:00:00.000Z',
  id: 1,
  is_active: true,
  source: 'salesloft',
  updated_at: '2026-11-01T00:00:00.000Z',
  account_name: 'Acme sales team',
  last_error: null,
  access_note: null,
  is_syncing: false,
  last_synced_at: '2026-11-01T00:00:00.000Z',
  sync_progress: null,
});

async function signIn(
  integrations: Record<string, unknown[]> = { [ACME]: [integration(ACME)], [GLOBEX]: [] },
) {
  const server = fakeServer({
    '/v1/api/user/self': { body: self },
    '/v1/rest/client': {
      body: self.clients.map((c) => ({
        id: c.client_id,
        name: c.client_name,
        parent_id: null,
        role: c.role,
        is_default: c.is_default,
      })),
    },
    [`/v1/rest/client/${ACME}/integrations`]: { body: integrations[ACME] },
    [`/v1/rest/client/${GLOBEX}/integrations`]: { body: integrations[GLOBEX] },
  });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  return server;
}

afterEach(() => {
  // Each test starts with no stored redirect target (resetAuth keeps it, as a real sign-out does).
  saveRedirect(null);
  resetAuth();
  vi.unstubAllGlobals();
});

describe('router built from the shared route table', () => {
  it('has every route of the table, and a catch-all for the 404 page', () => {
    const built = paths(buildRoutes());
    for (const r of APP_ROUTES) expect(built).toContain(r.path);
    expect(built).toContain('*');
  });

  it('"Any route not in the exempt list sends a logged-out user to /login"', async () => {
    const { router } = renderRoutes(buildRoutes(), '/');
    // Lazy screens may take a while to load on a busy machine.
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'), { timeout: 5000 });
    expect(await screen.findByRole('heading', { name: 'Sign in' }, { timeout: 5000 })).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe('Rally - Sign In'), { timeout: 5000 });
  });

  it('/auth/callback reached with no session asks for it once, then sends the user to /login with why', async () => {
    const server = fakeServer({ '/v1/api/user/self': { status: 401, body: { message: 'Unauthorized' } } });
    vi.stubGlobal('fetch', server.fetchFn);
    const { router } = renderRoutes(buildRoutes(), '/auth/callback');
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(router.state.location.search).toBe('?error=invalid_state');
    expect(await screen.findByText(/Your sign-in took too long or was interrupted/)).toBeInTheDocument();
    // Each ask used to unmount the screen behind the loader and mount it again, to ask again.
    await new Promise((r) => setTimeout(r, 300));
    expect(server.calls.filter((c) => c.url === '/v1/api/user/self')).toHaveLength(1);
  });

  it('"/ | Redirects to /feed, adding client_id of the current client if missing"', async () => {
    await signIn();
    const { router } = renderRoutes(buildRoutes(), '/');
    // The lazy /feed screen may take a while to load on a busy machine.
    await waitFor(() => expect(router.state.location.pathname).toBe('/feed'), { timeout: 5000 });
    expect(router.state.location.search).toBe(`?client_id=${ACME}`);
  });

  it('sends a client without an integration to /onboarding (has-integration check)', async () => {
    await signIn({ [ACME]: [], [GLOBEX]: [] });
    const { router } = renderRoutes(buildRoutes(), `/feed?client_id=${ACME}`);
    // The lazy /feed screen may take a while to load on a busy machine before the gate redirects.
    await waitFor(() => expect(router.state.location.pathname).toBe('/onboarding'), { timeout: 5000 });
    expect(router.state.location.search).toBe(`?client_id=${ACME}`);
  });

  it('shows the error page without the permission ("/clients | Needs permission client.read")', async () => {
    // Only the Globex membership (an SDR): no client of the user grants client.read.
    const globexOnly = { ...self, clients: self.clients.filter((c) => c.client_id === GLOBEX) };
    const server = fakeServer({
      '/v1/api/user/self': { body: globexOnly },
      '/v1/rest/client': { body: [] },
      [`/v1/rest/client/${GLOBEX}/integrations`]: { body: [] },
    });
    vi.stubGlobal('fetch', server.fetchFn);
    await loadSession();
    renderRoutes(buildRoutes(), `/clients?client_id=${GLOBEX}`);
    expect(await screen.findByRole('heading', { name: 'An error occurred' })).toBeInTheDocument();
    expect(screen.getByText(/does not have permission to see the clients/)).toBeInTheDocument();
  });

  it('/clients opens in a client where the user is an SDR when another of their clients grants client.read (issue 42 item 13)', async () => {
    await signIn();
    renderRoutes(buildRoutes(), `/clients?client_id=${GLOBEX}`);
    expect(
      await screen.findByRole('heading', { name: 'Clients', level: 1 }, { timeout: 15_000 }),
    ).toBeInTheDocument();
  });

  it('"Logged-in users are sent to /" from /login', async () => {
    await signIn();
    const { router } = renderRoutes(buildRoutes(), '/login');
    await waitFor(() => expect(router.state.location.pathname).toBe('/feed'), { timeout: 5000 });
  });

  it('shows "Page not found" for an unknown path', async () => {
    renderRoutes(buildRoutes(), '/nowhere');
    expect(await screen.findByRole('heading', { name: 'Page not found' })).toBeInTheDocument();
    expect(
      screen.getByText(/We are sorry, the page you requested could not be found. Please go back to the/),
    ).toBeInTheDocument();
    // The title is set by an effect; a loaded machine let an earlier test's lazy screen set its own
    // title first (CI at e0fbd65), so wait for ours.
    await waitFor(() => expect(document.title).toBe('Rally - Page not found'));
  });

  it('shows "An error occurred" followed by the message when a screen fails', async () => {
    const failing: RouteObject[] = [
      {
        errorElement: buildRoutes()[0]!.errorElement,
        children: [
          {
            path: '/broken',
            loader: () => {
              throw new Error('Chunk failed');
            },
            element: null,
          },
        ],
      },
    ];
    renderRoutes(failing, '/broken');
    expect(await screen.findByRole('heading', { name: 'An error occurred' })).toBeInTheDocument();
    expect(screen.getByText('Chunk failed')).toBeInTheDocument();
  });
});
