import { useSyncExternalStore } from 'react';
import { parseRole } from '@rally/shared';
import type { Client, Integration, Self } from '@rally/shared/schemas/auth';
import { ApiError, apiRequest, configureApiClient } from '../api-client.ts';
import { reset as resetAnalytics } from '../analytics.ts';
import { toastApiError } from '../api-errors.ts';
import { hasAuthHint } from '../auth-cookie.ts';

const schemas = () => import('./auth-schemas.ts');

export type CurrentRole = { colour: string; name: string; permissions: string[] };
export type RedirectTarget = { path: string; clientID: string | null };

export type AuthState = {
  /** 'loading' while self, clients and integrations are fetched after a sign-in or a reload. */
  status: 'loading' | 'ready' | 'error';
  /** 'Invalid link' when a ?token= sign-in link fails (SPEC.md §4). */
  error: string | null;
  loggedIn: boolean;
  /**
   * A sign-in link (or Google/Microsoft) was accepted for a user with TOTP on: no session yet, the login
   * screen opens on the code step (POST /v1/api/auth/mfa with the challenge cookie the server set).
   */
  mfaPending: boolean;
  user: Self | null;
  clients: Client[];
  integrations: Integration[];
  currentClient: string | null;
  currentRole: CurrentRole | null;
  redirect: RedirectTarget | null;
};

const REDIRECT_KEY = 'rally.redirect';
const loggedOut = (redirect: RedirectTarget | null): AuthState => ({
  status: 'ready',
  error: null,
  loggedIn: false,
  mfaPending: false,
  user: null,
  clients: [],
  integrations: [],
  currentClient: null,
  currentRole: null,
  redirect,
});

function readRedirect(): RedirectTarget | null {
  try {
    const raw = sessionStorage.getItem(REDIRECT_KEY);
    return raw ? (JSON.parse(raw) as RedirectTarget) : null;
  } catch {
    return null;
  }
}

let state: AuthState = loggedOut(readRedirect());
const listeners = new Set<() => void>();
/** The ?token= of the page load, sent as a bearer on self once (a magic link). */
let loginToken: string | null = null;

function set(patch: Partial<AuthState>) {
  state = { ...state, ...patch };
  for (const l of listeners) l();
}

export function getAuthState(): AuthState {
  return state;
}

export function useAuth(): AuthState {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => state,
  );
}

function roleIn(user: Self | null, clientId: string | null): CurrentRole | null {
  const m = user?.clients.find((c) => c.client_id === clientId);
  if (!m) return null;
  return { ...parseRole(m.role), permissions: m.permissions };
}

/** SPEC.md §4: query client_id, then the stored target's client id, then the default membership. */
export function chooseClient(
  user: Self,
  queryClientId: string | null,
  redirect: RedirectTarget | null,
): string | null {
  const member = (id: string | null | undefined) =>
    id && user.clients.some((c) => c.client_id === id) ? id : null;
  return (
    member(queryClientId) ??
    member(redirect?.clientID) ??
    user.clients.find((c) => c.is_default)?.client_id ??
    user.clients[0]?.client_id ??
    null
  );
}

/**
 * A call that got no answer (the page is being left, or the network is down) fails with a TypeError
 * or an AbortError. It says nothing about the session, so it must not end it: leaving a page while
 * its client-list call was in flight used to send the logout call and sign the user out everywhere.
 */
function isNoAnswer(err: unknown): boolean {
  return err instanceof TypeError || (err instanceof DOMException && err.name === 'AbortError');
}
export const NO_ANSWER_ERROR = 'Rally could not be reached. Check your connection and reload the page.';

async function fetchIntegrations(clientId: string): Promise<Integration[]> {
  return apiRequest(`/v1/rest/client/${clientId}/integrations`, {
    schema: (await schemas()).integrationsReply,
    clientId,
  });
}

/**
 * After a sign-in (or a reload with a session): self, then clients and integrations. A refusal of
 * clients or integrations logs out (SPEC.md §4); no answer at all is an error screen, not a logout.
 * A failed ?token= link is 'Invalid link'.
 */
export async function loadSession(): Promise<void> {
  set({ status: 'loading', loggedIn: true, error: null, mfaPending: false });
  let user: Self;
  try {
    user = await apiRequest('/v1/api/user/self', { schema: (await schemas()).selfReply });
  } catch (err) {
    if (loginToken && isMfaRequired(err)) {
      // The link was good but the account has a second factor: the code step, as after a password.
      loginToken = null;
      dropTokenFromUrl();
      set({ ...loggedOut(state.redirect), mfaPending: true });
    } else if (loginToken) {
      loginToken = null;
      set({ ...loggedOut(state.redirect), status: 'error', error: 'Invalid link' });
    } else {
      set(loggedOut(state.redirect));
    }
    if (!(err instanceof ApiError)) throw err;
    return;
  }
  if (loginToken) {
    loginToken = null;
    dropTokenFromUrl();
  }
  const query = new URLSearchParams(window.location.search).get('client_id');
  const currentClient = chooseClient(user, query, state.redirect);
  try {
    const [clients, integrations] = await Promise.all([
      apiRequest('/v1/rest/client', { schema: (await schemas()).clientsReply, clientId: currentClient }),
      currentClient ? fetchIntegrations(currentClient) : Promise.resolve([]),
    ]);
    set({
      status: 'ready',
      user,
      clients,
      integrations,
      currentClient,
      currentRole: roleIn(user, currentClient),
    });
    onIdentified?.(user);
  } catch (err) {
    if (isNoAnswer(err)) set({ status: 'error', error: NO_ANSWER_ERROR });
    else await logout();
  }
}

function dropTokenFromUrl(): void {
  const url = new URL(window.location.href);
  url.searchParams.delete('token');
  window.history.replaceState(window.history.state, '', url);
}

/** Self's 401 for a sign-in link of a user with TOTP on: `{ message, mfa: true }`. */
export function isMfaRequired(err: unknown): boolean {
  return (
    err instanceof ApiError &&
    err.status === 401 &&
    typeof err.data === 'object' &&
    err.data !== null &&
    (err.data as { mfa?: unknown }).mfa === true
  );
}

/** The code step is pending (Google or Microsoft sign-in of a user with TOTP on, back at /auth/callback). */
export function setMfaPending(pending: boolean): void {
  set({ mfaPending: pending });
}

let onIdentified: ((user: Self) => void) | undefined;
/** Analytics identifies the user after sign-in (SPEC.md §4); wired by the analytics add-on. */
export function setIdentifyHandler(fn: (user: Self) => void): void {
  onIdentified = fn;
}

/** Switches the current client (the client_id query of a link): role and integrations follow. */
export async function switchClient(clientId: string): Promise<void> {
  if (!state.user?.clients.some((c) => c.client_id === clientId)) return;
  set({ status: 'loading', currentClient: clientId, currentRole: roleIn(state.user, clientId) });
  try {
    set({ status: 'ready', integrations: await fetchIntegrations(clientId) });
  } catch (err) {
    if (isNoAnswer(err)) set({ status: 'error', error: NO_ANSWER_ERROR });
    else await logout();
  }
}

/** Refreshes self (after a profile change) without the loading state. */
export async function refreshUser(): Promise<void> {
  const user = await apiRequest('/v1/api/user/self', { schema: (await schemas()).selfReply });
  set({ user, currentRole: roleIn(user, state.currentClient) });
}

export async function refreshClients(): Promise<void> {
  const [user, clients] = await Promise.all([
    apiRequest('/v1/api/user/self', { schema: (await schemas()).selfReply }),
    apiRequest('/v1/rest/client', { schema: (await schemas()).clientsReply }),
  ]);
  set({ user, clients, currentRole: roleIn(user, state.currentClient) });
}

export async function refreshIntegrations(): Promise<void> {
  if (state.currentClient) set({ integrations: await fetchIntegrations(state.currentClient) });
}

/** Logout: the server call's errors are ignored; the state is reset (SPEC.md §4). */
export async function logout(): Promise<void> {
  let next: string | null = null;
  try {
    const reply = await apiRequest('/v1/api/logout', { method: 'POST', retries: 0 });
    // SAML single logout: the server asks that the browser go on to the identity provider.
    const url = (reply as { logout_url?: unknown } | undefined)?.logout_url;
    if (typeof url === 'string' && /^https?:\/\//.test(url)) next = url;
  } catch {
    // SPEC.md §4: "Errors from the logout call are ignored."
  }
  resetAuth();
  resetAnalytics();
  if (next) window.location.assign(next);
}

/** Back to logged out, keeping the redirect target. */
export function resetAuth(): void {
  set(loggedOut(state.redirect));
}

export function saveRedirect(target: RedirectTarget | null): void {
  if (target) sessionStorage.setItem(REDIRECT_KEY, JSON.stringify(target));
  else sessionStorage.removeItem(REDIRECT_KEY);
  set({ redirect: target });
}

/**
 * Where to go after sign-in (SPEC.md §2): the stored path with its client id as client_id, or '/';
 * reset-password and change-password count as no target.
 */
export function redirectPath(t: RedirectTarget | null): string {
  if (
    !t ||
    t.path.startsWith('/reset-password') ||
    t.path.startsWith('/change-password') ||
    t.path.startsWith('/login')
  )
    return '/';
  if (!t.clientID) return t.path;
  const url = new URL(t.path, window.location.origin);
  url.searchParams.set('client_id', t.clientID);
  return `${url.pathname}${url.search}`;
}

/** Reads the page's initial state: SPEC.md §4 "Initial loggedIn is true if the query has a token or…". */
export function initAuth(): void {
  const params = new URLSearchParams(window.location.search);
  loginToken = params.get('token');
  configureApiClient({
    clientId: () => state.currentClient,
    loginToken: () => loginToken,
    // SPEC.md §4/§8: any 401 logs out, with the 'Not Authenticated' toast.
    onUnauthorized: (error) => {
      if (!state.loggedIn || isMfaRequired(error)) return;
      toastApiError(error);
      resetAuth();
    },
  });
  if (hasAuthHint(window.location.search, document.cookie)) void loadSession();
  else set(loggedOut(state.redirect));
}
