import { notifications } from '@mantine/notifications';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BUILT_IN_ROLES } from '@rally/shared';
import type { Prospect, ProspectListReply } from '@rally/shared/schemas/prospects';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, selfFixture } from '../../../testing/fixtures.ts';
import { ProspectsScreen } from './prospects-screen.tsx';

const ACME = CLIENT_IDS.acme;
type Routes = Parameters<typeof fakeServer>[0];

const person = (n: number, patch: Partial<Prospect> = {}): Prospect => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  first_name: `First${n}`,
  last_name: `Last${n}`,
  title: 'CTO',
  target_id: null,
  company_name: 'Brightline Freight',
  company_id: null,
  company_website: 'https://brightline.example',
  is_active: true,
  photo_url: null,
  email: `p${n}@example.com`,
  cadences: [
    {
      cadence_id: 1,
      cadence_name: 'Q3 Outbound',
      target_id: `10000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
      assignee_id: null,
      assignee_name: 'Maya Lindgren',
      engagements: 2,
      impressions: 10 + n,
      super_date: n === 1 ? '2026-11-20T10:00:00.000Z' : null,
      is_active: true,
      day_number: 2,
      ad_tag_url: `https://app.rally.test/t/tok${n}/ad/300x250.png`,
      click_url: `https://app.rally.test/t/tok${n}/c`,
    },
  ],
  ...patch,
});

const page = (items: Prospect[], next: string | null = null): ProspectListReply => ({
  items,
  next_cursor: next,
  sort: 'name',
  order: 'asc',
  page_size: 50,
});

async function signIn(routes: Routes = {}) {
  const server = fakeServer({
    'GET /v1/api/user/self': {
      body: selfFixture([
        {
          client_id: ACME,
          client_name: 'Acme',
          is_default: true,
          role: 'yellow_sdr',
          permissions: [...BUILT_IN_ROLES.yellow_sdr],
        },
      ]),
    },
    '/v1/rest/client': {
      body: [{ id: ACME, name: 'Acme', parent_id: null, role: 'yellow_sdr', is_default: true }],
    },
    [`/v1/rest/client/${ACME}/integrations`]: { body: [] },
    'GET /sc/cadence': { body: [] },
    'GET /sc/sdr': { body: [] },
    ...routes,
  });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  return server;
}

const render = (query = '') =>
  renderRoutes(
    [{ path: '/prospects', element: <ProspectsScreen /> }],
    `/prospects?client_id=${ACME}${query}`,
  );
const listCalls = (server: { calls: { url: string }[] }) =>
  server.calls
    .filter((c) => c.url.startsWith('/sc/prospects?'))
    .map((c) => new URLSearchParams(c.url.split('?')[1]));

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

describe('ProspectsScreen', () => {
  it('lists prospects with company, e-mail, title, cadences, super date and impressions', async () => {
    await signIn({ 'GET /sc/prospects': { body: page([person(1), person(2, { is_active: false })]) } });
    render();
    const table = await screen.findByRole('table', { name: 'Prospects' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toHaveTextContent('First1 Last1');
    expect(rows[0]).toHaveTextContent('Brightline Freight');
    expect(rows[0]).toHaveTextContent('p1@example.com');
    expect(rows[0]).toHaveTextContent('Q3 Outbound');
    expect(rows[0]).toHaveTextContent('Nov 20, 2026');
    expect(rows[0]).toHaveTextContent('11');
    expect(rows[1]).toHaveTextContent('Inactive');
  });

  it('searches once typing pauses, not on every key, and keeps the search in the URL', async () => {
    const server = await signIn({ 'GET /sc/prospects': { body: page([person(1)]) } });
    const { router } = render();
    await screen.findByRole('table', { name: 'Prospects' });
    await userEvent.type(screen.getByRole('textbox', { name: 'Search prospects' }), 'kendall');
    await waitFor(() => expect(listCalls(server).at(-1)?.get('search')).toBe('kendall'));
    // One call for the page, one for the settled search: none for "k", "ke", …
    expect(listCalls(server).map((q) => q.get('search'))).toEqual([null, 'kendall']);
    expect(router.state.location.search).toContain('q=kendall');
  });

  it('sorts by a column (again: the other way) and filters; each starts at page 1', async () => {
    const server = await signIn({
      'GET /sc/prospects': () => ({ body: page([person(1)], 'next-cursor') }),
    });
    render();
    await screen.findByRole('table', { name: 'Prospects' });
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(listCalls(server).at(-1)?.get('cursor')).toBe('next-cursor'));
    expect(screen.getByText('Page 2')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Sort by impressions' }));
    await waitFor(() => expect(listCalls(server).at(-1)?.get('sort')).toBe('impressions'));
    expect(listCalls(server).at(-1)?.get('order')).toBe('desc');
    expect(listCalls(server).at(-1)?.get('cursor')).toBeNull();
    expect(screen.getByText('Page 1')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Sort by impressions' }));
    await waitFor(() => expect(listCalls(server).at(-1)?.get('order')).toBe('asc'));
    await userEvent.click(screen.getByRole('radio', { name: 'Super' }));
    await waitFor(() => expect(listCalls(server).at(-1)?.get('super')).toBe('true'));
    await userEvent.click(screen.getByRole('radio', { name: 'Inactive' }));
    await waitFor(() => expect(listCalls(server).at(-1)?.get('active')).toBe('false'));
  });

  it('sorts by cadences on the server: those in the most cadences first (issue 42 item 11)', async () => {
    const server = await signIn({
      'GET /sc/prospects': () => ({ body: page([person(1)], null) }),
    });
    render();
    await screen.findByRole('table', { name: 'Prospects' });
    await userEvent.click(screen.getByRole('button', { name: 'Sort by cadences' }));
    await waitFor(() => expect(listCalls(server).at(-1)?.get('sort')).toBe('cadences'));
    expect(listCalls(server).at(-1)?.get('order')).toBe('desc');
  });

  it('"Mine" lists the signed-in user\'s own prospects (mine=true in the URL), "Super" their superprospects', async () => {
    const rep = (id: string, first: string, email: string) => ({
      id,
      client_id: ACME,
      integration_id: 1,
      first_name: first,
      last_name: 'Rep',
      email,
      email_invalid: false,
      photo_url: null,
      title: 'SDR',
      selected: true,
      active_targets_count: 3,
      super_targets_count: 1,
      company_name: '',
      calendar_url: '',
    });
    const server = await signIn({
      'GET /sc/prospects': { body: page([person(1)]) },
      'GET /sc/sdr': {
        body: [
          rep('20000000-0000-4000-8000-000000000001', 'Other', 'other@example.com'),
          rep('20000000-0000-4000-8000-000000000002', 'Dana', 'DANA@example.com'),
        ],
      },
    });
    const { router } = render();
    await screen.findByRole('table', { name: 'Prospects' });
    await userEvent.click(screen.getByRole('radio', { name: 'Mine' }));
    await waitFor(() => expect(listCalls(server).at(-1)?.get('mine')).toBe('true'));
    expect(router.state.location.search).toContain('mine=true');
    await userEvent.click(screen.getByRole('radio', { name: 'Super' }));
    await waitFor(() => expect(listCalls(server).at(-1)?.get('super')).toBe('true'));
    expect(listCalls(server).at(-1)?.get('mine')).toBe('true');
    // The user is in the rep list, marked as them.
    await userEvent.click(screen.getAllByLabelText('Sales rep')[0]!);
    expect(await screen.findByText('Dana Rep (you)')).toBeInTheDocument();
    expect(screen.getByText('Other Rep')).toBeInTheDocument();
  });

  it('"Mine" for someone who is no rep says so, and offers everyone\'s prospects', async () => {
    const server = await signIn({ 'GET /sc/prospects': { body: page([]) } });
    render('&mine=true');
    expect(await screen.findByText('No prospects are yours here')).toBeInTheDocument();
    expect(
      screen.getByText(/No sales rep of this client has your e-mail address \(dana@example.com\)/),
    ).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: "Show everyone's prospects" }));
    await waitFor(() => expect(listCalls(server).at(-1)?.get('mine')).toBeNull());
  });

  it('?prospect= opens that prospect (the global search links here); closing drops it from the URL', async () => {
    await signIn({
      'GET /sc/prospects': { body: page([person(1)]) },
      [`GET /sc/prospects/${person(2).id}`]: { body: person(2) },
    });
    const { router } = render(`&prospect=${person(2).id}`);
    await screen.findByRole('table', { name: 'Prospects' });
    const drawer = await screen.findByRole('dialog', { name: 'First2 Last2' }, { timeout: 5000 });
    expect(within(drawer).getByRole('table', { name: 'Cadence entries' })).toBeInTheDocument();
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(router.state.location.search).toBe(`?client_id=${ACME}`));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('opens a drawer with each cadence entry', async () => {
    const one = person(1);
    const uncounted = [
      { type: 'click', verdict: 'scanner', count: 2 },
      { type: 'impression', verdict: 'machine_open', count: 4 },
      { type: 'impression', verdict: 'bot', count: 1 },
    ] as const;
    await signIn({
      'GET /sc/prospects': { body: page([one]) },
      [`GET /sc/prospects/${one.id}`]: {
        body: { ...one, cadences: one.cadences.map((c) => ({ ...c, uncounted })) },
      },
    });
    render();
    await userEvent.click(await screen.findByRole('button', { name: 'First1 Last1' }));
    const drawer = await screen.findByRole('dialog', { name: 'First1 Last1' });
    const entries = within(drawer).getByRole('table', { name: 'Cadence entries' });
    expect(entries).toHaveTextContent('Q3 Outbound');
    expect(entries).toHaveTextContent('Maya Lindgren');
    expect(entries).toHaveTextContent('Day 2');
    expect(entries).toHaveTextContent('Nov 20, 2026');
    // What was not counted for the entry, and why (issue 38), once the drawer has the prospect.
    const notCounted = await within(drawer).findByRole('region', { name: 'Not counted, Q3 Outbound' });
    expect(
      within(notCounted)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual([
      '2 clicks by a mail security scanner not counted',
      '4 opens by Apple Mail Privacy Protection prefetch not counted',
      '1 open by bots not counted',
    ]);

    // Each entry's ad tag and click tag, to copy or open.
    const tags = within(drawer).getByRole('region', { name: 'Tags for Q3 Outbound' });
    expect(within(tags).getByRole('textbox', { name: 'Ad tag, Q3 Outbound' })).toHaveValue(
      'https://app.rally.test/t/tok1/ad/300x250.png',
    );
    expect(within(tags).getByRole('textbox', { name: 'Click tag, Q3 Outbound' })).toHaveValue(
      'https://app.rally.test/t/tok1/c',
    );
    const open = within(tags).getByRole('link', { name: /Open ad/ });
    expect(open).toHaveAttribute('href', 'https://app.rally.test/t/tok1/ad/300x250.png');
    expect(open).toHaveAttribute('target', '_blank');
    const writeText = vi.fn(() => Promise.resolve());
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    try {
      await userEvent.click(within(tags).getByRole('button', { name: 'Copy Click tag, Q3 Outbound' }));
      expect(writeText).toHaveBeenCalledWith('https://app.rally.test/t/tok1/c');
      await userEvent.click(within(tags).getByRole('button', { name: 'Copy Ad tag, Q3 Outbound' }));
      expect(writeText).toHaveBeenLastCalledWith('https://app.rally.test/t/tok1/ad/300x250.png');
    } finally {
      Reflect.deleteProperty(navigator, 'clipboard');
    }
  });

  it('empty: none yet, or none matching with a way to clear; an error can be retried', async () => {
    let fail = true;
    const server = await signIn({
      // Searching "boom" fails until the test says otherwise.
      'GET /sc/prospects': () =>
        listCalls(server).at(-1)?.get('search') === 'boom' && fail
          ? { status: 404, body: { message: 'Not found' } }
          : { body: page([]) },
    });
    render();
    expect(await screen.findByText('No prospects yet')).toBeInTheDocument();
    const search = screen.getByRole('textbox', { name: 'Search prospects' });
    await userEvent.type(search, 'zzz');
    expect(await screen.findByText('No prospects match')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Clear search and filters' }));
    expect(await screen.findByText('No prospects yet')).toBeInTheDocument();
    await userEvent.type(search, 'boom');
    expect(await screen.findByText('Could not load prospects')).toBeInTheDocument();
    fail = false;
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('No prospects match')).toBeInTheDocument();
  });
});
