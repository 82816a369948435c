import { needsIntegration, permissionWords } from '@rally/shared';
import type { AppRoute } from '@rally/shared';
import { useEffect, useRef, useState } from 'react';
import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { ErrorView } from '../components/errors/error-page.tsx';
import { ScreenLoader } from '../components/layouts/screen-suspense.tsx';
import { redirectPath, saveRedirect, switchClient, useAuth } from '../lib/auth/store.ts';

/** The last app path seen, so /login can store where the user came from (SPEC.md §2 "/login"). */
let previous: { path: string; clientID: string | null } | null = null;

function withClientId(pathname: string, search: string, clientId: string): string {
  const params = new URLSearchParams(search);
  params.set('client_id', clientId);
  // A login link's token has been used by now; carrying it on would replay it on a reload.
  params.delete('token');
  return `${pathname}?${params.toString()}`;
}

/**
 * The guards of SPEC.md §2 for one route: login required unless exempt, guest-only routes, /login
 * when signed in, client_id added or corrected, redirects, the has-integration check and the
 * permission check (the error page).
 */
export function RouteGate({ route, children }: { route: AppRoute; children: ReactNode }) {
  const auth = useAuth();
  const location = useLocation();
  const params = new URLSearchParams(location.search);
  const queryClient = params.get('client_id');
  const savedLogin = useRef(false);

  const member = Boolean(queryClient && auth.user?.clients.some((c) => c.client_id === queryClient));
  const needsSwitch =
    auth.loggedIn && auth.status === 'ready' && member && queryClient !== auth.currentClient;
  useEffect(() => {
    if (needsSwitch && queryClient) void switchClient(queryClient);
  }, [needsSwitch, queryClient]);

  const isLogin = route.id === 'login';
  useEffect(() => {
    if (route.id !== 'login' && auth.status === 'ready')
      previous = { path: `${location.pathname}`, clientID: queryClient };
  });
  // "/login … the previous path plus client_id is saved as the redirect target, except when coming
  // from reset-password or change-password."
  useEffect(() => {
    if (!isLogin || auth.loggedIn || savedLogin.current) return;
    savedLogin.current = true;
    if (previous && !/^\/(reset-password|change-password|login|register|signup)/.test(previous.path))
      saveRedirect(previous);
  }, [isLogin, auth.loggedIn]);

  // Where a signed-in user leaves /login (or a guest-only screen) for, decided once: a user who signs
  // in here returns to the stored target; one who was already signed in goes to "/" (SPEC.md §2). A
  // re-render while the target's screen still loads must not change it.
  const leaving = auth.loggedIn && auth.status === 'ready' && (isLogin || Boolean(route.guestOnly));
  const [signsInHere, setSignsInHere] = useState(!auth.loggedIn);
  if (!auth.loggedIn && !signsInHere) setSignsInHere(true);
  const [leaveTo, setLeaveTo] = useState<string | null>(null);
  if (leaving && leaveTo === null) setLeaveTo(signsInHere ? redirectPath(auth.redirect) : '/');
  useEffect(() => {
    if (leaving) saveRedirect(null);
  }, [leaving]);

  // A signed-out visit to a protected route remembers where to return after sign-in.
  const mustSignIn = auth.status === 'ready' && !auth.loggedIn && !route.exempt && !route.guestOnly;
  useEffect(() => {
    if (mustSignIn) saveRedirect({ path: location.pathname, clientID: queryClient });
  }, [mustSignIn, location.pathname, queryClient]);

  if (route.standalone) return children;
  if (auth.status === 'error') return <ErrorView error={new Error(auth.error ?? 'Unknown error')} />;
  if (auth.status === 'loading') return <ScreenLoader />;

  if (!auth.loggedIn) {
    if (route.exempt || route.guestOnly) return children;
    return <Navigate to="/login" replace />;
  }

  const current = auth.currentClient;
  if (isLogin || route.guestOnly) {
    const target = leaveTo ?? redirectPath(auth.redirect);
    return <Navigate to={target === '/' && current ? `/?client_id=${current}` : target} replace />;
  }
  if (needsSwitch) return <ScreenLoader />;
  if (current && queryClient !== current)
    return <Navigate to={withClientId(location.pathname, location.search, current)} replace />;
  if (route.redirectTo) return <Navigate to={`${route.redirectTo}${location.search}`} replace />;
  if (needsIntegration(route) && auth.integrations.length === 0) {
    return <Navigate to={current ? `/onboarding?client_id=${current}` : '/onboarding'} replace />;
  }
  // Clients lists every client of the user (issue 42 item 13): an owner of the agency keeps it in a
  // client where they are only a manager, so any membership's client.read opens it.
  const granted =
    route.id === 'clients'
      ? (auth.user?.clients.some((m) => m.permissions.includes('client.read')) ?? false)
      : (auth.currentRole?.permissions.includes(route.permission ?? '') ?? false);
  if (route.permission && !granted) {
    return (
      <ErrorView
        error={new Error(`Access Denied: your role does not have ${permissionWords(route.permission)}.`)}
      />
    );
  }
  return children;
}
