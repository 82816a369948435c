import type { AppRoute } from '@rally/shared';
import { useMatches } from 'react-router';
import { usePageTitle } from '../../lib/use-page-title.ts';

export type RouteHandle = { route?: AppRoute; title?: string };

/** The deepest matched route's title, from the route table (or a handle's own title). */
export function useRouteTitle(fallback: string): string {
  const matches = useMatches();
  for (let i = matches.length - 1; i >= 0; i--) {
    const handle = matches[i]?.handle as RouteHandle | undefined;
    if (handle?.title) return handle.title;
    if (handle?.route) return handle.route.title;
  }
  return fallback;
}

/** Sets 'Rally - {page}' for the current route. Rendered once per layout. */
export function RouteTitle() {
  usePageTitle(useRouteTitle('Page not found'));
  return null;
}
