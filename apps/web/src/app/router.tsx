import { APP_ROUTES } from '@rally/shared';
import type { AppRoute, AppRouteId, Layout } from '@rally/shared';
import { createBrowserRouter } from 'react-router';
import type { RouteObject } from 'react-router';
import { AuthLayout } from '../components/layouts/auth-layout.tsx';
import { EmptyLayout } from '../components/layouts/empty-layout.tsx';
import { ScreenLoader } from '../components/layouts/screen-suspense.tsx';
import type { RouteHandle } from '../components/layouts/route-title.tsx';
import { ErrorPage } from '../components/errors/error-page.tsx';
import { pageview } from '../lib/analytics.ts';
import { reloadIfStale } from '../lib/deploy.ts';
import { RouteGate } from './route-gate.tsx';
import { firstScreenShown } from '../lib/after-first-screen.ts';
import { useEffect } from 'react';
import { loadScreen } from './screen-loader.ts';
import { loadQueryModule } from '../lib/query-loader.ts';

/** Tells deferred work (lib/after-first-screen.ts) that a screen, not a loader, has been committed. */
function FirstScreenMark() {
  useEffect(firstScreenShown, []);
  return null;
}

function toRouteObject(route: AppRoute): RouteObject {
  const handle: RouteHandle = { route };
  return {
    path: route.path,
    handle,
    lazy: async () => {
      const [{ default: Screen }] = await Promise.all([
        loadScreen(route.id as AppRouteId),
        // Every screen but /login may read the query cache (screen-loader.ts).
        route.id === 'login' ? null : loadQueryModule(),
      ]);
      return {
        Component: () => (
          <RouteGate route={route}>
            <FirstScreenMark />
            <Screen />
          </RouteGate>
        ),
      };
    },
  };
}

/** The settings pages that share the settings navigation (issue 42 item 2); the invoice has no chrome. */
export const isSettingsRoute = (route: AppRoute) =>
  route.layout === 'default' && /^\/(settings|client-settings)(\/|$)/.test(route.path);

function routesFor(layout: Layout, filter: (r: AppRoute) => boolean = () => true): RouteObject[] {
  return (APP_ROUTES as readonly AppRoute[])
    .filter((r) => r.layout === layout && filter(r))
    .map(toRouteObject);
}

/** The app's routes, built from the shared route table (packages/shared/src/routes.ts). */
export function buildRoutes(): RouteObject[] {
  return [
    {
      errorElement: (
        <>
          <FirstScreenMark />
          <ErrorPage />
        </>
      ),
      // Shown while the first screen's code loads.
      HydrateFallback: ScreenLoader,
      children: [
        { Component: AuthLayout, children: routesFor('auth') },
        { Component: EmptyLayout, children: routesFor('empty') },
        {
          // The app shell (header, navigation, client switcher and their menus) loads with the first
          // screen that needs it, so /login does not download it (issue 19: /login JS budget).
          lazy: async () => {
            const [{ AppShell }] = await Promise.all([import('./app-shell.tsx'), loadQueryModule()]);
            return { Component: AppShell };
          },
          children: [
            ...routesFor('default', (r) => !isSettingsRoute(r)),
            {
              // One layout route, so moving between settings pages keeps the navigation in place.
              lazy: async () => {
                const { SettingsLayout } = await import('../components/layouts/settings-layout.tsx');
                return { Component: SettingsLayout };
              },
              children: routesFor('default', isSettingsRoute),
            },
            {
              path: '*',
              handle: { title: 'Page not found' },
              lazy: async () => {
                const { NotFoundPage } = await import('../components/errors/not-found-page.tsx');
                return {
                  Component: () => (
                    <>
                      <FirstScreenMark />
                      <NotFoundPage />
                    </>
                  ),
                };
              },
            },
          ],
        },
      ],
    },
  ];
}

export function createRouter() {
  const router = createBrowserRouter(buildRoutes());
  // After a new build was detected, the next navigation is a full load of its target (SPEC.md §4).
  // Each route change is also a pageview (SPEC.md §2), the first page included.
  let last = `${router.state.location.pathname}${router.state.location.search}`;
  pageview(last);
  router.subscribe((state) => {
    const next = `${state.location.pathname}${state.location.search}`;
    if (next !== last && state.navigation.state === 'idle') {
      last = next;
      reloadIfStale(next);
      pageview(next);
    }
  });
  return router;
}
