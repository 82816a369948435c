import { matchAppRoute } from '@rally/shared';
import type { AppRouteId, Permission } from '@rally/shared';
import { QueryClientContext } from '@tanstack/react-query';
import type { QueryClient } from '@tanstack/react-query';
import { use, useEffect, useMemo } from 'react';
import type { ReactNode } from 'react';
import { getAuthState } from '../lib/auth/store.ts';
import type { AuthState } from '../lib/auth/store.ts';
import { LinkPrefetchContext } from '../lib/link-prefetch.ts';
import type { LinkPrefetcher } from '../lib/link-prefetch.ts';
import { loadScreen as loadScreenModule } from './screen-loader.ts';

type NetworkInformation = { saveData?: boolean; effectiveType?: string };

/**
 * SPEC.md §9 "route-resolve delay about 100 ms": the pointer has to rest on a link this long before
 * its route is fetched, so sweeping across the header does not fetch every page.
 */
export const HOVER_INTENT_MS = 100;

/** SPEC.md §2: no prefetch on a very slow connection (2g, slow-2g), nor when the user asked to save data. */
export function isSlowConnection(nav: Navigator = navigator): boolean {
  const connection = (nav as Navigator & { connection?: NetworkInformation }).connection;
  return connection?.saveData === true || (connection?.effectiveType ?? '').includes('2g');
}

/** The main queries of a screen, fetched ahead when the user may see them. */
type RouteData = {
  permission?: Permission;
  prefetch: (queryClient: QueryClient, clientId: string) => Promise<void>[];
};

/** Screens whose page payload is worth fetching on hover; the others have code only. */
export const ROUTE_DATA: Partial<Record<AppRouteId, RouteData>> = {
  clients: {
    permission: 'client.read',
    // The api modules load on demand (not the features' index files, which would pull every screen),
    // so their schemas stay out of the first download (issue 19).
    prefetch: (qc) => [
      import('../features/clients/api/get-clients.ts').then((m) =>
        qc.prefetchQuery(m.getClientsQueryOptions()),
      ),
    ],
  },
  'settings-users': {
    permission: 'users.read',
    prefetch: (qc, clientId) => [
      import('../features/settings/api/get-members.ts').then((m) =>
        qc.prefetchQuery(m.getMembersQueryOptions(clientId)),
      ),
    ],
  },
  'settings-users-pending': {
    permission: 'users.read',
    prefetch: (qc, clientId) => [
      import('../features/settings/api/get-invitations.ts').then((m) =>
        qc.prefetchQuery(m.getInvitationsQueryOptions(clientId)),
      ),
    ],
  },
};

export type RoutePrefetcher = LinkPrefetcher & {
  /** The target route's code and, for a signed-in user allowed to see it, its main queries. */
  prefetchRoute: (href: string) => void;
};

type Deps = {
  /** Absent until the query cache's code has loaded (query-loader.ts): then code is prefetched alone. */
  queryClient?: QueryClient;
  loadScreen?: (id: AppRouteId) => Promise<unknown>;
  getAuth?: () => AuthState;
  nav?: () => Navigator;
};

/** Resolves same-origin app links to a route id and the link's client_id. */
function resolve(href: string): { id: AppRouteId; clientId: string | null } | null {
  let url: URL;
  try {
    url = new URL(href, window.location.href);
  } catch {
    return null;
  }
  if (url.origin !== window.location.origin) return null;
  const id = matchAppRoute(url.pathname)?.route.id as AppRouteId | undefined;
  if (!id) return null;
  return { id, clientId: url.searchParams.get('client_id') };
}

export function createRoutePrefetcher({
  queryClient,
  loadScreen = loadScreenModule,
  getAuth = getAuthState,
  nav = () => navigator,
}: Deps): RoutePrefetcher {
  const started = new Set<AppRouteId>();

  const prefetchModule = (href: string) => {
    const target = resolve(href);
    if (!target || started.has(target.id) || isSlowConnection(nav())) return;
    started.add(target.id);
    // A failed prefetch is tried again next time; the navigation itself reports errors.
    loadScreen(target.id).catch(() => started.delete(target.id));
  };

  const prefetchData = (href: string) => {
    const target = resolve(href);
    const data = target && ROUTE_DATA[target.id];
    if (!target || !data || !queryClient || isSlowConnection(nav())) return;
    const auth = getAuth();
    const client = auth.currentClient;
    // The API calls carry the current client; a link into another client is fetched after the switch.
    if (!auth.loggedIn || auth.status !== 'ready' || !client) return;
    if (target.clientId && target.clientId !== client) return;
    if (data.permission && !auth.currentRole?.permissions.includes(data.permission)) return;
    // prefetchQuery never throws and skips data that is still fresh (the client's staleTime).
    void Promise.all(data.prefetch(queryClient, client));
  };

  return {
    prefetchModule,
    prefetchRoute: (href) => {
      prefetchModule(href);
      prefetchData(href);
    },
  };
}

/**
 * Prefetches a link's route when the pointer rests on it, or it gets keyboard focus, for
 * HOVER_INTENT_MS (SPEC.md §2 "Page-payload prefetch happens on link hover"). Returns the uninstall.
 */
export function installHoverPrefetch(
  prefetcher: Pick<RoutePrefetcher, 'prefetchRoute'>,
  target: Document = document,
  delay = HOVER_INTENT_MS,
): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let pending: HTMLAnchorElement | null = null;
  const linkOf = (node: EventTarget | null) => {
    const link = node instanceof Element ? node.closest('a[href]') : null;
    return link instanceof HTMLAnchorElement ? link : null;
  };
  const cancel = () => {
    clearTimeout(timer);
    pending = null;
  };
  const onEnter = (event: Event) => {
    const link = linkOf(event.target);
    if (!link || link === pending) return;
    cancel();
    pending = link;
    timer = setTimeout(() => {
      pending = null;
      prefetcher.prefetchRoute(link.href);
    }, delay);
  };
  const onLeave = (event: Event) => {
    const link = linkOf(event.target);
    const to = (event as MouseEvent | FocusEvent).relatedTarget;
    if (link && link === pending && !(to instanceof Node && link.contains(to))) cancel();
  };
  target.addEventListener('mouseover', onEnter, { passive: true });
  target.addEventListener('focusin', onEnter);
  target.addEventListener('mouseout', onLeave, { passive: true });
  target.addEventListener('focusout', onLeave);
  return () => {
    cancel();
    target.removeEventListener('mouseover', onEnter);
    target.removeEventListener('focusin', onEnter);
    target.removeEventListener('mouseout', onLeave);
    target.removeEventListener('focusout', onLeave);
  };
}

/** Gives the app's links their prefetch: hover anywhere on the page, and the header's schedule. */
export function RoutePrefetchProvider({ children }: { children: ReactNode }) {
  const queryClient = use(QueryClientContext);
  const prefetcher = useMemo(() => createRoutePrefetcher({ queryClient }), [queryClient]);
  useEffect(() => installHoverPrefetch(prefetcher), [prefetcher]);
  return <LinkPrefetchContext value={prefetcher}>{children}</LinkPrefetchContext>;
}
