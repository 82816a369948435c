import { QueryClient } from '@tanstack/react-query';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AuthState } from '../lib/auth/store.ts';
import { CLIENT_IDS } from '../testing/fixtures.ts';
import { fakeServer } from '../testing/render.tsx';
import {
  HOVER_INTENT_MS,
  createRoutePrefetcher,
  installHoverPrefetch,
  isSlowConnection,
} from './prefetch.tsx';

const ACME = CLIENT_IDS.acme;
const GLOBEX = CLIENT_IDS.globex;

function signedIn(permissions: string[]): AuthState {
  return {
    status: 'ready',
    error: null,
    loggedIn: true,
    mfaPending: false,
    user: null,
    clients: [],
    integrations: [],
    currentClient: ACME,
    currentRole: { colour: 'purple', name: 'owner', permissions },
    redirect: null,
  };
}

function setConnection(connection: { saveData?: boolean; effectiveType?: string } | undefined) {
  Object.defineProperty(navigator, 'connection', { value: connection, configurable: true });
}

/** A link with a child element, as the header renders them (the pointer lands on the child). */
function link(href: string) {
  const a = document.createElement('a');
  a.href = href;
  const span = document.createElement('span');
  span.textContent = href;
  a.appendChild(span);
  document.body.appendChild(a);
  return { a, span };
}

const over = (el: Element, related: Element | null = null) =>
  el.dispatchEvent(new MouseEvent('mouseover', { bubbles: true, relatedTarget: related }));
const out = (el: Element, related: Element | null = null) =>
  el.dispatchEvent(new MouseEvent('mouseout', { bubbles: true, relatedTarget: related }));

function setUp(auth: AuthState = signedIn(['client.read', 'users.read'])) {
  const server = fakeServer({
    'GET /v1/rest/client': { body: [] },
    [`GET /v1/rest/client/${ACME}/users`]: { body: [] },
  });
  vi.stubGlobal('fetch', server.fetchFn);
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: 30_000 } } });
  const loadScreen = vi.fn(async () => ({}));
  const prefetcher = createRoutePrefetcher({ queryClient, loadScreen, getAuth: () => auth });
  uninstall = installHoverPrefetch(prefetcher);
  return { server, loadScreen, queryClient };
}

let uninstall: (() => void) | undefined;
beforeEach(() => vi.useFakeTimers());
afterEach(() => {
  uninstall?.();
  uninstall = undefined;
  vi.useRealTimers();
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
  Reflect.deleteProperty(navigator, 'connection');
});

describe('"Page-payload prefetch happens on link hover (not on a very slow connection)" (SPEC.md §2)', () => {
  it(`hovering a link for ${HOVER_INTENT_MS} ms loads its screen and its main query, once`, async () => {
    const { server, loadScreen } = setUp();
    const { span } = link(`/clients?client_id=${ACME}`);
    over(span);
    vi.advanceTimersByTime(HOVER_INTENT_MS - 1);
    expect(loadScreen).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(loadScreen).toHaveBeenCalledExactlyOnceWith('clients');
    await vi.waitFor(() => expect(server.calls.map((c) => c.url)).toEqual(['/v1/rest/client']));

    // Again while the data is fresh: neither the screen nor the call is repeated.
    out(span);
    over(span);
    vi.advanceTimersByTime(HOVER_INTENT_MS);
    await Promise.resolve();
    expect(loadScreen).toHaveBeenCalledOnce();
    expect(server.calls).toHaveLength(1);
  });

  it('a pointer that only sweeps across a link fetches nothing', () => {
    const { loadScreen } = setUp();
    const { a, span } = link('/clients');
    over(span);
    vi.advanceTimersByTime(HOVER_INTENT_MS / 2);
    // Moving between the link's own children keeps the hover.
    out(span, a);
    vi.advanceTimersByTime(HOVER_INTENT_MS / 4);
    out(a, document.body);
    vi.advanceTimersByTime(HOVER_INTENT_MS * 2);
    expect(loadScreen).not.toHaveBeenCalled();
  });

  it('keyboard focus on a link prefetches it too', () => {
    const { loadScreen } = setUp();
    const { a } = link('/settings/profile');
    a.focus();
    vi.advanceTimersByTime(HOVER_INTENT_MS);
    expect(loadScreen).toHaveBeenCalledExactlyOnceWith('settings-profile');
  });

  it('ignores other origins and paths outside the route table', () => {
    const { loadScreen, server } = setUp();
    over(link('https://example.com/clients').span);
    vi.advanceTimersByTime(HOVER_INTENT_MS);
    over(link('/no/such/page/here').span);
    vi.advanceTimersByTime(HOVER_INTENT_MS);
    expect(loadScreen).not.toHaveBeenCalled();
    expect(server.calls).toEqual([]);
  });

  it.each([{ saveData: true }, { effectiveType: '2g' }, { effectiveType: 'slow-2g' }])(
    'fetches neither code nor data on a slow or data-saving connection (%j)',
    async (connection) => {
      setConnection(connection);
      expect(isSlowConnection()).toBe(true);
      const { loadScreen, server } = setUp();
      over(link('/clients').span);
      vi.advanceTimersByTime(HOVER_INTENT_MS * 2);
      await Promise.resolve();
      expect(loadScreen).not.toHaveBeenCalled();
      expect(server.calls).toEqual([]);
    },
  );

  it.each([{ effectiveType: '3g' }, { effectiveType: '4g', saveData: false }])(
    'prefetches on a usable connection (%j)',
    (connection) => {
      setConnection(connection);
      expect(isSlowConnection()).toBe(false);
      const { loadScreen } = setUp();
      over(link('/clients').span);
      vi.advanceTimersByTime(HOVER_INTENT_MS);
      expect(loadScreen).toHaveBeenCalledOnce();
    },
  );

  it("fetches a screen's data only for a signed-in user whose role may see it", async () => {
    const cases: [string, AuthState, string][] = [
      ['signed out', { ...signedIn(['client.read']), loggedIn: false, currentClient: null }, '/clients'],
      ['no client.read', signedIn(['users.read']), `/clients?client_id=${ACME}`],
      ['a link into another client', signedIn(['client.read']), `/clients?client_id=${GLOBEX}`],
      ['no users.read', signedIn(['client.read']), `/settings/users?client_id=${ACME}`],
    ];
    for (const [why, auth, href] of cases) {
      const { server, loadScreen } = setUp(auth);
      over(link(href).span);
      vi.advanceTimersByTime(HOVER_INTENT_MS);
      await Promise.resolve();
      // The code is still fetched: it is the same for everyone.
      expect(loadScreen, why).toHaveBeenCalledOnce();
      expect(server.calls, why).toEqual([]);
      uninstall?.();
      document.body.innerHTML = '';
    }
  });

  it('the users screen prefetches the members of the current client', async () => {
    const { server } = setUp();
    over(link(`/settings/users?client_id=${ACME}`).span);
    vi.advanceTimersByTime(HOVER_INTENT_MS);
    await vi.waitFor(() => expect(server.calls.map((c) => c.url)).toEqual([`/v1/rest/client/${ACME}/users`]));
  });

  it('a failed code prefetch is tried again on the next hover', async () => {
    const { loadScreen } = setUp();
    loadScreen.mockRejectedValueOnce(new Error('offline'));
    const { span } = link('/clients');
    over(span);
    vi.advanceTimersByTime(HOVER_INTENT_MS);
    await vi.waitFor(() => expect(loadScreen).toHaveBeenCalledOnce());
    await Promise.resolve();
    out(span);
    over(span);
    vi.advanceTimersByTime(HOVER_INTENT_MS);
    expect(loadScreen).toHaveBeenCalledTimes(2);
  });
});
