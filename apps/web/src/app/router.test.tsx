import { screen, waitFor } from '@testing-library/react';
import { APP_ROUTES } from '@rally/shared';
import { afterEach, describe, expect, it } from 'vitest';
import type { RouteObject } from 'react-router';
import { renderRoutes } from '../testing/render.tsx';
import { buildRoutes } from './router.tsx';

function paths(routes: RouteObject[]): string[] {
  return routes.flatMap((r) => [...(r.path ? [r.path] : []), ...paths(r.children ?? [])]);
}

afterEach(() => {
  document.cookie = 'rally_auth_token=; expires=Thu, 01 Jan 1970 00:00:00 GMT';
});

describe('router built from the shared route table', () => {
  it('has every route of the table, and a catch-all for the 404 page', () => {
    const built = paths(buildRoutes());
    for (const r of APP_ROUTES) expect(built).toContain(r.path);
    expect(built).toContain('*');
  });

  it('sends a logged-out user from / to /login, and shows the sign-in form', async () => {
    const { router } = renderRoutes(buildRoutes(), '/');
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe('Rally - Sign In'));
  });

  it('"/ | Redirects to /feed" once signed in, keeping the query', async () => {
    document.cookie = 'rally_auth_token=1';
    const { router } = renderRoutes(buildRoutes(), '/?client_id=abc');
    await waitFor(() => expect(router.state.location.pathname).toBe('/feed'));
    expect(router.state.location.search).toBe('?client_id=abc');
  });

  it('shows "Page not found" for an unknown path', async () => {
    renderRoutes(buildRoutes(), '/nowhere');
    expect(await screen.findByRole('heading', { name: 'Page not found' })).toBeInTheDocument();
    expect(
      screen.getByText(/We are sorry, the page you requested could not be found. Please go back to the/),
    ).toBeInTheDocument();
    expect(document.title).toBe('Rally - Page not found');
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
