import { afterEach, describe, expect, it, vi } from 'vitest';
import { CLIENT_IDS, acmeSession } from '../../testing/fixtures.ts';
import { fakeServer } from '../../testing/render.tsx';
import { NO_ANSWER_ERROR, getAuthState, loadSession, resetAuth, switchClient } from './store.ts';

const integrations = `/v1/rest/client/${CLIENT_IDS.acme}/integrations`;
const logoutCalls = (calls: { url: string; init?: RequestInit }[]) =>
  calls.filter((c) => c.url === '/v1/api/logout' && c.init?.method === 'POST');

afterEach(() => {
  resetAuth();
  vi.unstubAllGlobals();
});

describe('SPEC.md §4 "If fetching the client list or integrations fails, the user is logged out"', () => {
  it.each([
    ['client list', '/v1/rest/client'],
    ['integrations', integrations],
  ])('a refusal of the %s logs out: the logout call goes to the server', async (_, path) => {
    const server = fakeServer({
      ...acmeSession('purple_owner'),
      [path]: { status: 400, body: { message: 'refused' } },
      'POST /v1/api/logout': { status: 204 },
    });
    vi.stubGlobal('fetch', server.fetchFn);
    await loadSession();
    expect(getAuthState().loggedIn).toBe(false);
    expect(logoutCalls(server.calls)).toHaveLength(1);
  });

  it.each([
    ['a network failure (or the page being left)', () => new TypeError('Failed to fetch')],
    ['an aborted call', () => new DOMException('The operation was aborted.', 'AbortError')],
  ])('%s is no answer: the session is kept and an error is shown, never a logout', async (_, failure) => {
    const server = fakeServer({
      ...acmeSession('purple_owner'),
      '/v1/rest/client': () => {
        throw failure();
      },
      'POST /v1/api/logout': { status: 204 },
    });
    vi.stubGlobal('fetch', server.fetchFn);
    await loadSession();
    expect(logoutCalls(server.calls)).toEqual([]);
    expect(getAuthState()).toMatchObject({ loggedIn: true, status: 'error', error: NO_ANSWER_ERROR });
  });

  it('switching client: no answer from integrations keeps the session; a refusal logs out', async () => {
    let failure: 'none' | 'network' | 'refused' = 'none';
    const server = fakeServer({
      ...acmeSession('purple_owner'),
      [integrations]: () => {
        if (failure === 'network') throw new TypeError('Failed to fetch');
        return failure === 'refused' ? { status: 400, body: { message: 'refused' } } : { body: [] };
      },
      'POST /v1/api/logout': { status: 204 },
    });
    vi.stubGlobal('fetch', server.fetchFn);
    await loadSession();
    expect(getAuthState().status).toBe('ready');
    failure = 'network';
    await switchClient(CLIENT_IDS.acme);
    expect(logoutCalls(server.calls)).toEqual([]);
    expect(getAuthState()).toMatchObject({ loggedIn: true, status: 'error' });
    failure = 'refused';
    await switchClient(CLIENT_IDS.acme);
    expect(logoutCalls(server.calls)).toHaveLength(1);
    expect(getAuthState().loggedIn).toBe(false);
  });
});
