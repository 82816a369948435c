import { notifications } from '@mantine/notifications';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BUILT_IN_ROLES } from '@rally/shared';
import type { FeedItem } from '@rally/shared/schemas/feed';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, selfFixture } from '../../../testing/fixtures.ts';
import { FeedScreen, feedItemLink } from './feed-screen.tsx';

const ACME = CLIENT_IDS.acme;
type Routes = Parameters<typeof fakeServer>[0];

/** Stands in for the browser's EventSource (jsdom has none): the test plays the server's part. */
class FakeEventSource {
  static CLOSED = 2;
  static last: FakeEventSource | null = null;
  readonly url: string;
  readyState = 0;
  onerror: (() => void) | null = null;
  private listeners = new Map<string, ((e: MessageEvent<string>) => void)[]>();
  constructor(url: string) {
    this.url = url;
    FakeEventSource.last = this;
  }
  addEventListener(type: string, fn: (e: MessageEvent<string>) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), fn]);
  }
  emit(type: string, data: unknown) {
    for (const fn of this.listeners.get(type) ?? [])
      fn(new MessageEvent(type, { data: JSON.stringify(data) }));
  }
  close() {
    this.readyState = 2;
  }
}

const item = (id: number, patch: Partial<FeedItem> = {}): FeedItem => ({
  id,
  type: 'click',
  created_at: new Date(Date.now() - id * 60_000).toISOString(),
  target_id: null,
  prospect_id: null,
  prospect_name: `Person ${id}`,
  company_name: 'Acme Robotics',
  cadence_name: 'Q3 Outbound',
  cadence_id: 1,
  sales_rep_id: null,
  sales_rep_name: 'Maya Lindgren',
  detail: {},
  ...patch,
});

async function signIn(routes: Routes = {}, role: keyof typeof BUILT_IN_ROLES = 'grey_viewer') {
  const server = fakeServer({
    'GET /v1/api/user/self': {
      body: selfFixture([
        {
          client_id: ACME,
          client_name: 'Acme',
          is_default: true,
          role,
          permissions: [...BUILT_IN_ROLES[role]],
        },
      ]),
    },
    '/v1/rest/client': {
      body: [{ id: ACME, name: 'Acme', parent_id: null, role, is_default: true }],
    },
    [`/v1/rest/client/${ACME}/integrations`]: { body: [] },
    'GET /sc/dashboard/feed': {
      body: {
        latest_id: 1,
        latest_at: new Date().toISOString(),
        last_7_days: { super: 2, click: 5, view: 0, sync: 0, import: 0, journey: 0 },
        stream_url: '/sc/dashboard/feed/stream',
        heartbeat_seconds: 25,
      },
    },
    'GET /sc/dashboard/super/today': {
      body: { date: '2026-11-22', time_zone: 'UTC', count: 4, yesterday: 1 },
    },
    'GET /sc/dashboard/engagement/last': {
      body: {
        impressions: 120,
        clicks: 7,
        views: 2,
        previous: { impressions: 100, clicks: 9, views: 2 },
        uncounted: [
          { type: 'click', verdict: 'scanner', count: 2 },
          { type: 'impression', verdict: 'machine_open', count: 1 },
        ],
        last_event: {
          type: 'click',
          at: new Date().toISOString(),
          prospect_name: 'Kendall Ellery',
          cadence_name: 'Q3',
        },
      },
    },
    'GET /sc/dashboard/feed/data': {
      body: {
        items: [item(1), item(2)],
        page: 1,
        page_size: 20,
        total: 2,
        total_capped: false,
        has_more: false,
      },
    },
    ...routes,
  });
  vi.stubGlobal('fetch', server.fetchFn);
  vi.stubGlobal('EventSource', FakeEventSource);
  await loadSession();
  return server;
}

const render = () => renderRoutes([{ path: '/feed', element: <FeedScreen /> }], `/feed?client_id=${ACME}`);

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
  vi.useRealTimers();
  FakeEventSource.last = null;
});

describe('FeedScreen', () => {
  it('shows the headline cards and the activity, newest first, with relative times', async () => {
    await signIn();
    render();
    expect(await screen.findByLabelText('New superprospects today')).toHaveTextContent('4');
    expect(screen.getByText('+3 vs yesterday')).toBeInTheDocument();
    expect(screen.getByText('120')).toBeInTheDocument();
    expect(screen.getByText(/Ad clicked by Kendall Ellery/)).toBeInTheDocument();
    // What was not counted in the 7 days, and why (issue 38).
    const uncounted = screen.getByRole('region', { name: 'Not counted, last 7 days' });
    expect(
      within(uncounted)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual([
      '2 clicks by a mail security scanner not counted',
      '1 open by Apple Mail Privacy Protection prefetch not counted',
    ]);
    const list = await screen.findByRole('list', { name: 'Activity' });
    const rows = within(list).getAllByRole('listitem');
    expect(rows.map((r) => r.textContent)).toEqual([
      expect.stringContaining('Person 1 clicked an ad'),
      expect.stringContaining('Person 2 clicked an ad'),
    ]);
    expect(rows[0]).toHaveTextContent('1 minute ago');
    expect(rows[0]).toHaveTextContent('Acme Robotics · Q3 Outbound · rep Maya Lindgren');
  });

  it('each row opens its prospect, journey or cadence (issue 42 item 7)', async () => {
    const P = '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c00aaaa';
    await signIn({
      'GET /sc/dashboard/feed/data': {
        body: {
          items: [
            item(1, { prospect_id: P }),
            item(2, {
              type: 'journey',
              cadence_id: 9,
              company_name: 'Lumen',
              detail: { cohort_id: 'c-1', to_stage: 'Aware' },
            }),
            item(3, { type: 'sync', prospect_name: null, cadence_id: 4 }),
            item(4, { type: 'sync', prospect_name: null, cadence_id: null }),
          ],
          page: 1,
          page_size: 20,
          total: 4,
          total_capped: false,
          has_more: false,
        },
      },
    });
    render();
    const list = await screen.findByRole('list', { name: 'Activity' });
    const links = within(list).getAllByRole('link');
    expect(links.map((a) => [a.textContent, a.getAttribute('href')])).toEqual([
      ['Person 1 clicked an ad', `/prospects?client_id=${ACME}&prospect=${P}`],
      ['Lumen moved to Aware', `/cohorts/c-1/journey/view?client_id=${ACME}`],
      [expect.stringContaining('sync finished'), `/cadence/4?client_id=${ACME}`],
    ]);
    expect(feedItemLink(item(5, { type: 'sync', cadence_id: null }), ACME)).toBeNull();
  });

  it('follows the stream of the current client and puts a new item on top without a reload', async () => {
    const server = await signIn();
    render();
    await screen.findByRole('list', { name: 'Activity' });
    const source = FakeEventSource.last!;
    expect(source.url).toBe(`/sc/dashboard/feed/stream?client_id=${ACME}`);
    act(() => source.emit('ready', {}));
    expect(await screen.findByText('Live')).toBeInTheDocument();
    const before = server.calls.length;
    act(() =>
      source.emit(
        'feed',
        item(9, {
          type: 'super',
          prospect_name: 'Grace Hopper',
          created_at: new Date().toISOString(),
          detail: { reason: 'click' },
        }),
      ),
    );
    const rowsNow = () => within(screen.getByRole('list', { name: 'Activity' })).getAllByRole('listitem');
    await waitFor(() => expect(rowsNow()).toHaveLength(3));
    const rows = rowsNow();
    expect(rows[0]).toHaveTextContent('Grace Hopper became a superprospect after an ad click');
    expect(rows[0]).toHaveTextContent('just now');
    // The same item again (a replay after a reconnect) is not shown twice.
    act(() => source.emit('feed', item(9, { type: 'super', prospect_name: 'Grace Hopper' })));
    await new Promise((r) => setTimeout(r, 50));
    expect(rowsNow()).toHaveLength(3);
    // The list itself was not fetched again; the cards were.
    await waitFor(() =>
      expect(server.calls.slice(before).map((c) => c.url)).toContain('/sc/dashboard/super/today'),
    );
    expect(server.calls.slice(before).some((c) => c.url.startsWith('/sc/dashboard/feed/data'))).toBe(false);
  });

  it('a burst of items refreshes the cards at once and once more at the end of the 5 s window, for the last item', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const server = await signIn();
    render();
    await screen.findByRole('list', { name: 'Activity' });
    const source = FakeEventSource.last!;
    act(() => source.emit('ready', {}));
    const cardFetches = () => server.calls.filter((c) => c.url === '/sc/dashboard/super/today').length;
    await waitFor(() => expect(cardFetches()).toBe(1)); // the first load
    act(() => source.emit('feed', item(7, { created_at: new Date().toISOString() })));
    await waitFor(() => expect(cardFetches()).toBe(2));
    // A click and then a landing page view, a moment later: the view must reach the cards too.
    act(() => source.emit('feed', item(8, { type: 'view', created_at: new Date().toISOString() })));
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1_000);
    });
    expect(cardFetches()).toBe(2);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(4_500);
    });
    await waitFor(() => expect(cardFetches()).toBe(3));
  }, 20_000);

  it('relative times move on every 30 s (SPEC.md §9)', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ['setInterval', 'Date'] });
    await signIn({
      'GET /sc/dashboard/feed/data': {
        body: {
          items: [item(1, { created_at: new Date().toISOString() })],
          page: 1,
          page_size: 20,
          total: 1,
          total_capped: false,
          has_more: false,
        },
      },
    });
    render();
    const list = await screen.findByRole('list', { name: 'Activity' });
    expect(within(list).getByRole('listitem')).toHaveTextContent('just now');
    await act(async () => {
      await vi.advanceTimersByTimeAsync(90_000);
    });
    expect(within(list).getByRole('listitem')).toHaveTextContent('1 minute ago');
    // 90 s of faked intervals re-render the rows (links since issue 42 item 7) several times: past 20 s
    // on a loaded two-core machine, and past 60 s twice in a CI-like run of 2026-12-07 (load 14-17).
  }, 120_000);

  it('"Load more" asks the next page as the list stood (until_id), and appends it', async () => {
    const server = await signIn({
      'GET /sc/dashboard/feed/data': (init) => {
        void init;
        const last = server.calls.at(-1)!.url;
        const page = Number(new URLSearchParams(last.split('?')[1]).get('page'));
        return page === 1
          ? {
              body: {
                items: [item(1), item(2)],
                page: 1,
                page_size: 20,
                total: 3,
                total_capped: false,
                has_more: true,
              },
            }
          : {
              body: {
                items: [item(3)],
                page: 2,
                page_size: 20,
                total: 3,
                total_capped: false,
                has_more: false,
              },
            };
      },
    });
    render();
    await screen.findByRole('list', { name: 'Activity' });
    await userEvent.click(screen.getByRole('button', { name: 'Load more' }));
    await waitFor(() =>
      expect(within(screen.getByRole('list', { name: 'Activity' })).getAllByRole('listitem')).toHaveLength(3),
    );
    expect(server.calls.map((c) => c.url)).toContain(
      '/sc/dashboard/feed/data?page=2&page_size=20&until_id=1',
    );
    expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument();
  });

  it('empty and error states', async () => {
    await signIn({
      'GET /sc/dashboard/feed/data': {
        body: { items: [], page: 1, page_size: 20, total: 0, total_capped: false, has_more: false },
      },
      'GET /sc/dashboard/super/today': { status: 404, body: { message: 'Not found' } },
    });
    render();
    expect(await screen.findByText('No activity yet')).toBeInTheDocument();
    expect(
      await screen.findByText('Could not load superprospects.', {}, { timeout: 8000 }),
    ).toBeInTheDocument();
  });

  it('a failed list says so and can be tried again', async () => {
    let fail = true;
    await signIn({
      'GET /sc/dashboard/feed/data': () =>
        fail
          ? { status: 404, body: { message: 'Not found' } }
          : {
              body: {
                items: [item(1)],
                page: 1,
                page_size: 20,
                total: 1,
                total_capped: false,
                has_more: false,
              },
            },
    });
    render();
    expect(await screen.findByText('Could not load the feed')).toBeInTheDocument();
    fail = false;
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('Person 1 clicked an ad')).toBeInTheDocument();
  });
});

describe('FeedScreen: required attentions above the feed', () => {
  const path = `GET /v1/rest/client/${ACME}/required_attentions`;

  it('lists what needs a person, each with a link to the screen that fixes it (client_id added)', async () => {
    await signIn(
      {
        [path]: {
          body: {
            items: [
              {
                id: 'integration_inactive:7',
                kind: 'integration_inactive',
                message:
                  'Salesforce is inactive: access revoked. Nothing syncs from it until it is reconnected.',
                link: { path: '/settings/connections', label: 'Reconnect Salesforce' },
              },
              {
                id: 'cadence_day_without_content:3',
                kind: 'cadence_day_without_content',
                message: 'Q3 Outbound has ads on, but day 2 has no content: its prospects see no ad then.',
                link: { path: '/cadence/3?integration_id=1', label: 'Add content' },
              },
            ],
            total: 2,
          },
        },
      },
      'purple_owner',
    );
    render();
    const panel = await screen.findByRole('region', { name: 'Needs your attention' });
    expect(within(panel).getByText(/Salesforce is inactive: access revoked/)).toBeInTheDocument();
    expect(within(panel).getByRole('link', { name: 'Reconnect Salesforce' })).toHaveAttribute(
      'href',
      `/settings/connections?client_id=${ACME}`,
    );
    expect(within(panel).getByRole('link', { name: 'Add content' })).toHaveAttribute(
      'href',
      `/cadence/3?integration_id=1&client_id=${ACME}`,
    );
  });

  it('nothing needs attention: no panel; a role without reports.read does not ask', async () => {
    const server = await signIn({ [path]: { body: { items: [], total: 0 } } }, 'yellow_sdr');
    render();
    await screen.findByRole('list', { name: 'Activity' });
    await waitFor(() => expect(server.calls.some((c) => c.url.endsWith('/required_attentions'))).toBe(true));
    expect(screen.queryByRole('region', { name: 'Needs your attention' })).not.toBeInTheDocument();

    resetAuth();
    const viewer = await signIn({ [path]: { body: { items: [], total: 0 } } });
    render();
    await screen.findAllByRole('list', { name: 'Activity' });
    expect(viewer.calls.some((c) => c.url.endsWith('/required_attentions'))).toBe(false);
  });
});
