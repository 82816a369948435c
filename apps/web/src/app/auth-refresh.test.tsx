import { useMutation } from '@tanstack/react-query';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppProviders } from './providers.tsx';
import { acmeSession } from '../testing/fixtures.ts';
import { fakeServer } from '../testing/render.tsx';
import { actionName, refreshAuthBeforeAction, resetActionRefresh } from '../lib/auth/action-refresh.ts';
import { getAuthState, loadSession, resetAuth } from '../lib/auth/store.ts';

const HINT = 'rally_has_auth_token';
const setHint = (on: boolean) => {
  document.cookie = on ? `${HINT}=1; path=/` : `${HINT}=; path=/; expires=Thu, 01 Jan 1970 00:00:00 GMT`;
};

beforeEach(async () => {
  resetActionRefresh();
  vi.stubGlobal('fetch', fakeServer(acmeSession('purple_owner')).fetchFn);
  setHint(true);
  await loadSession();
  expect(getAuthState().loggedIn).toBe(true);
});
afterEach(() => {
  setHint(false);
  resetAuth();
  vi.unstubAllGlobals();
});

describe('"Auth refresh is skipped for actions prefixed update:" (SPEC.md §8)', () => {
  it('an action refreshes the auth state: with the session cookie gone, this tab is logged out', () => {
    expect(refreshAuthBeforeAction('save:cadence')).toBe(true);
    expect(getAuthState().loggedIn).toBe(true);
    setHint(false); // signed out in another tab
    expect(refreshAuthBeforeAction('save:cadence')).toBe(true);
    expect(getAuthState().loggedIn).toBe(false);
  });

  it('an update:… action skips the refresh and stays logged in', () => {
    refreshAuthBeforeAction('save:cadence');
    setHint(false);
    expect(refreshAuthBeforeAction('update:content')).toBe(false);
    expect(getAuthState().loggedIn).toBe(true);
  });

  it('an unnamed action is refreshed too; a tab that never had the cookie (a ?token= link) is left alone', () => {
    setHint(false);
    resetActionRefresh();
    refreshAuthBeforeAction(undefined);
    expect(getAuthState().loggedIn).toBe(true);
    expect(actionName(['update:content', 'x'])).toBe('update:content');
    expect(actionName(undefined)).toBeUndefined();
  });

  it('is wired to every mutation of the app (the query client of AppProviders)', async () => {
    function Actions() {
      const save = useMutation({ mutationKey: ['save:thing'], mutationFn: async () => 'ok' });
      const update = useMutation({ mutationKey: ['update:thing'], mutationFn: async () => 'ok' });
      return (
        <>
          <button type="button" onClick={() => update.mutate()}>
            update
          </button>
          <button type="button" onClick={() => save.mutate()}>
            save
          </button>
        </>
      );
    }
    render(
      <AppProviders>
        <Actions />
      </AppProviders>,
    );
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'save' })));
    setHint(false);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'update' })));
    expect(getAuthState().loggedIn).toBe(true);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'save' })));
    await waitFor(() => expect(getAuthState().loggedIn).toBe(false));
  });
});
