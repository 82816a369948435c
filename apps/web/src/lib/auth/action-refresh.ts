import type { MutationKey } from '@tanstack/react-query';
import { hasAuthHint } from '../auth-cookie.ts';
import { getAuthState, resetAuth } from './store.ts';

/**
 * SPEC.md §8: "Auth refresh is skipped for actions prefixed update:".
 *
 * An action is a mutation; its name is the first part of its mutationKey (e.g. ['update:content']).
 * Before an action runs, the auth state is refreshed from the session-hint cookie (SPEC.md §4: the
 * cookie whose name ends with auth_token): when the session ended elsewhere (signed out in another
 * tab, expired), this tab is logged out at once rather than after a refused call. Actions named
 * `update:…` — the saves made while a field is being edited — skip the refresh, so an edit in
 * progress is never cut short by it (the 401 rule of §4 still applies to their replies).
 *
 * A tab signed in by a ?token= link may have no cookie at all; it is refreshed only once the cookie
 * has been seen.
 */
export const UPDATE_ACTION_PREFIX = 'update:';

let cookieSeen = false;

export function actionName(key: MutationKey | undefined): string | undefined {
  const first = key?.[0];
  return typeof first === 'string' ? first : undefined;
}

/** Runs before every action; returns whether the auth state was refreshed. */
export function refreshAuthBeforeAction(name: string | undefined): boolean {
  if (name?.startsWith(UPDATE_ACTION_PREFIX)) return false;
  const state = getAuthState();
  if (!state.loggedIn) return true;
  const hint = hasAuthHint('', document.cookie);
  if (hint) cookieSeen = true;
  else if (cookieSeen) resetAuth();
  return true;
}

/** For tests: forget that the cookie was seen. */
export function resetActionRefresh(): void {
  cookieSeen = false;
}
