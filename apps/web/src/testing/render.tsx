import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { RouterProvider, createMemoryRouter } from 'react-router';
import type { RouteObject } from 'react-router';
import { AppProviders } from '../app/providers.tsx';

/** Renders routes in a memory router inside the app's own providers. */
export function renderRoutes(routes: RouteObject[], initialPath: string) {
  const router = createMemoryRouter(routes, { initialEntries: [initialPath] });
  const view = render(
    <AppProviders>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  return { router, ...view };
}

export function renderWithRouter(ui: ReactElement, path = '/') {
  return renderRoutes([{ path: '*', element: ui }], path);
}

type Reply = { status?: number; body?: unknown; headers?: Record<string, string> };

/** Stands in for the server at the browser boundary (fetch): path → reply. */
export function fakeServer(routes: Record<string, Reply | ((init?: RequestInit) => Reply)>) {
  const calls: { url: string; init?: RequestInit }[] = [];
  const fetchFn = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input instanceof Request ? input.url : input), window.location.origin);
    calls.push({ url: `${url.pathname}${url.search}`, init });
    const key = `${init?.method ?? 'GET'} ${url.pathname}`;
    const entry = routes[key] ?? routes[url.pathname];
    const reply =
      typeof entry === 'function' ? entry(init) : (entry ?? { status: 404, body: { message: 'Not found' } });
    return new Response(reply.body === undefined ? null : JSON.stringify(reply.body), {
      status: reply.status ?? 200,
      headers: { 'content-type': 'application/json', 'x-xsrf-token': 'token-1', ...reply.headers },
    });
  };
  return { fetchFn, calls };
}
