import { APP_ROUTES } from '@rally/shared';
import type { AppRoute, Layout } from '@rally/shared';
import { createBrowserRouter, redirect } from 'react-router';
import type { LoaderFunctionArgs, RouteObject } from 'react-router';
import { AuthLayout } from '../components/layouts/auth-layout.tsx';
import { DefaultLayout } from '../components/layouts/default-layout.tsx';
import { EmptyLayout } from '../components/layouts/empty-layout.tsx';
import { ScreenLoader } from '../components/layouts/screen-suspense.tsx';
import type { RouteHandle } from '../components/layouts/route-title.tsx';
import { ErrorPage } from '../components/errors/error-page.tsx';
import { NotFoundPage } from '../components/errors/not-found-page.tsx';
import { hasAuthHint } from '../lib/auth-cookie.ts';
import { screens } from './screens.ts';

/** SPEC.md §2: "Any route not in the exempt list sends a logged-out user to /login." */
function guard(route: AppRoute) {
  return ({ request }: LoaderFunctionArgs) => {
    const url = new URL(request.url);
    if (!route.exempt && !hasAuthHint(url.search, document.cookie)) throw redirect('/login');
    if (route.redirectTo) throw redirect(`${route.redirectTo}${url.search}`);
    return null;
  };
}

function toRouteObject(route: AppRoute): RouteObject {
  const handle: RouteHandle = { route };
  return {
    path: route.path,
    handle,
    loader: guard(route),
    lazy: async () => ({ Component: (await screens[route.id as keyof typeof screens]()).default }),
  };
}

function routesFor(layout: Layout): RouteObject[] {
  return (APP_ROUTES as readonly AppRoute[]).filter((r) => r.layout === layout).map(toRouteObject);
}

/** The app's routes, built from the shared route table (packages/shared/src/routes.ts). */
export function buildRoutes(): RouteObject[] {
  return [
    {
      errorElement: <ErrorPage />,
      // Shown while the first screen's code loads.
      HydrateFallback: ScreenLoader,
      children: [
        { Component: AuthLayout, children: routesFor('auth') },
        { Component: EmptyLayout, children: routesFor('empty') },
        {
          Component: DefaultLayout,
          children: [
            ...routesFor('default'),
            { path: '*', Component: NotFoundPage, handle: { title: 'Page not found' } },
          ],
        },
      ],
    },
  ];
}

export function createRouter() {
  return createBrowserRouter(buildRoutes());
}
