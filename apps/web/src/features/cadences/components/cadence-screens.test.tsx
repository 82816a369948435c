import { notifications } from '@mantine/notifications';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BUILT_IN_ROLES } from '@rally/shared';
import type { Cadence, CadenceListItem } from '@rally/shared/schemas/cadences';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import { CadenceScreen } from './cadence-screen.tsx';
import { CadencesScreen } from './cadences-screen.tsx';
import { NO_CONTENT_TEXT } from './cadence-day-card.tsx';
import { NO_AD_CONTENT_WARNING } from './ads-switch.tsx';

const ACME = CLIENT_IDS.acme;
const CONTENT = '0b6f2f5e-8d4c-4f55-9a7e-2f1d3c4b5a69';
const Logo = ({ source }: { source: string }) => <span>{source} logo</span>;

const counts = { total: 3, active: 2, contacted: 1, super: 1 };
const base = {
  id: 7,
  client_id: ACME,
  integration_id: 2,
  source: 'salesloft',
  name: 'Enterprise Outbound',
  status: 'active' as const,
  is_super: false,
  is_syncing: false,
  last_synced_at: null,
  owner_id: null,
  owner: null,
  selected_sdrs: [],
  counts,
};
const listItem: CadenceListItem = { ...base, day_count: 2 };
const day = (n: number) => ({
  day_number: n,
  count_total: n,
  count_active: n,
  count_contacted: 0,
  count_super: 0,
  content_days: [],
});
const cadence: Cadence = { ...base, days: [day(1), day(2)] };

type Routes = Parameters<typeof fakeServer>[0];

async function signIn(role: keyof typeof BUILT_IN_ROLES, routes: Routes = {}) {
  const server = fakeServer({
    ...acmeSession(role),
    'GET /sc/cadence': { body: [listItem] },
    'GET /sc/cadence/7': { body: cadence },
    'GET /sc/sdr': { body: [] },
    'GET /sc/sdr/cadence/7': { body: [] },
    'GET /sc/content': {
      body: {
        items: [{ id: CONTENT, name: 'Spring launch', title: 'x', status: 'published', is_archived: false }],
      },
    },
    'PUT /sc/cadence/7': (init) => {
      const body = JSON.parse(String(init?.body)) as {
        selected_sdrs: string[];
        days: { day_number: number; content_days: Cadence['days'][number]['content_days'] }[];
      };
      return {
        body: {
          ...cadence,
          selected_sdrs: body.selected_sdrs,
          days: body.days.map((d) => ({ ...day(d.day_number), content_days: d.content_days })),
        },
      };
    },
    ...routes,
  });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  return server;
}

const render = (path: string) =>
  renderRoutes(
    [
      { path: '/cadence', element: <CadencesScreen SourceLogo={Logo} /> },
      { path: '/cadence/:id', element: <CadenceScreen SourceLogo={Logo} /> },
    ],
    path,
  );

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

describe('CadencesScreen', () => {
  it('lists a cadence with its status, ads, days, counts and a Sync now for a writer', async () => {
    await signIn('green_manager');
    render(`/cadence?client_id=${ACME}`);
    const table = await screen.findByRole('table', { name: 'Cadences' });
    const row = within(table).getByRole('row', { name: /Enterprise Outbound/ });
    expect(within(row).getByRole('link', { name: 'Enterprise Outbound' })).toHaveAttribute(
      'href',
      `/cadence/7?client_id=${ACME}&integration_id=2`,
    );
    expect(within(row).getByLabelText('Status: Active')).toBeInTheDocument();
    expect(within(row).getByText('Ads off')).toBeInTheDocument();
    expect(within(row).getByText('All reps')).toBeInTheDocument();
    expect(within(row).getByText('Never synced')).toBeInTheDocument();
    expect(within(row).getByRole('button', { name: 'Sync now' })).toBeEnabled();
  });

  it('empty: says where cadences come from', async () => {
    await signIn('purple_owner', { 'GET /sc/cadence': { body: [] } });
    render(`/cadence?client_id=${ACME}`);
    expect(await screen.findByText('No cadences yet')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to connections' })).toBeInTheDocument();
  });

  it('error: explains and offers to try again', async () => {
    const server = await signIn('purple_owner', {
      'GET /sc/cadence': { status: 403, body: { message: 'Nope' } },
    });
    const user = userEvent.setup();
    render(`/cadence?client_id=${ACME}`);
    expect(await screen.findByText('Could not load cadences')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(server.calls.filter((c) => c.url === '/sc/cadence')).toHaveLength(2));
  });
});

describe('CadenceScreen', () => {
  it('adds content and a rule to day 1 and saves every day in one PUT', async () => {
    const server = await signIn('purple_owner');
    const user = userEvent.setup();
    render(`/cadence/7?client_id=${ACME}&integration_id=2`);
    const day1 = await screen.findByRole('region', { name: 'Day 1' });
    // The switch is named for what it does; its state is said beside it (issue 42 item 8: "Ads on" on
    // a switch that was off).
    const ads = screen.getByRole('switch', { name: /^Show ads/ });
    expect(ads).not.toBeChecked();
    expect(ads).toHaveAccessibleName(
      /^Show ads\s*No ads are shown for this cadence\. Saved as soon as you switch it\.$/,
    );
    await user.click(within(day1).getByRole('button', { name: 'Add content to Day 1' }));
    await user.click(within(day1).getByRole('button', { name: 'Add rule to Day 1, content 1' }));
    expect(within(day1).getByRole('textbox', { name: 'Rule 1: value' })).toHaveValue('15');
    await user.click(screen.getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(server.calls.some((c) => c.init?.method === 'PUT')).toBe(true));
    const put = server.calls.find((c) => c.init?.method === 'PUT');
    expect(put?.url).toBe('/sc/cadence/7?integration_id=2');
    expect(JSON.parse(String(put?.init?.body))).toEqual({
      selected_sdrs: [],
      days: [
        {
          day_number: 1,
          content_days: [
            {
              content_id: CONTENT,
              day_transition_actions: [
                {
                  action_type: 'move_to_day',
                  action_rule: 'impressions_gte',
                  action_rule_value: 15,
                  target_day_number: 2,
                },
              ],
            },
          ],
        },
        { day_number: 2, content_days: [] },
      ],
    });
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Unsaved changes' })).toBeNull());
  });

  it('turning ads on with no content on any day warns in words; it saves at once and says "Saved"', async () => {
    const server = await signIn('purple_owner', {
      'PUT /sc/cadence/7': { body: { ...cadence, is_super: true } },
    });
    const user = userEvent.setup();
    render(`/cadence/7?client_id=${ACME}&integration_id=2`);
    const ads = await screen.findByRole('switch', { name: /^Show ads/ });
    expect(screen.queryByText(NO_AD_CONTENT_WARNING)).toBeNull();
    await user.click(ads);
    expect(await screen.findByText(NO_AD_CONTENT_WARNING)).toBeInTheDocument();
    expect(await screen.findByRole('status')).toHaveTextContent('Saved');
    const put = server.calls.find((c) => c.init?.method === 'PUT');
    expect(JSON.parse(String(put?.init?.body))).toEqual({ is_super: true });
    // The switch is not a change of the days: no "Save changes" bar, nothing to lose on leaving.
    expect(screen.queryByRole('region', { name: 'Unsaved changes' })).toBeNull();
  });

  it('no warning once a day has content', async () => {
    const withContent: Cadence = {
      ...cadence,
      is_super: true,
      days: [{ ...day(1), content_days: [{ content_id: CONTENT, day_transition_actions: [] }] }, day(2)],
    };
    await signIn('purple_owner', { 'GET /sc/cadence/7': { body: withContent } });
    render(`/cadence/7?client_id=${ACME}&integration_id=2`);
    expect(await screen.findByRole('switch', { name: /^Show ads/ })).toBeChecked();
    expect(screen.queryByText(NO_AD_CONTENT_WARNING)).toBeNull();
  });

  it('asks before leaving with unsaved days, and stays on Stay', async () => {
    await signIn('purple_owner');
    const user = userEvent.setup();
    const { router } = render(`/cadence/7?client_id=${ACME}&integration_id=2`);
    const day1 = await screen.findByRole('region', { name: 'Day 1' });
    await user.click(within(day1).getByRole('button', { name: 'Add content to Day 1' }));
    await act(() => router.navigate(`/cadence?client_id=${ACME}`));
    const dialog = await screen.findByRole('dialog', { name: 'Leave without saving?' });
    expect(dialog).toHaveTextContent('Your changes to the sales reps or days will be lost.');
    await user.click(within(dialog).getByRole('button', { name: 'Stay' }));
    expect(router.state.location.pathname).toBe('/cadence/7');
    expect(screen.getByRole('region', { name: 'Unsaved changes' })).toBeInTheDocument();
  });

  it('without the content studio (GET /sc/content is 404) the days say so and offer no content to add', async () => {
    await signIn('purple_owner', { 'GET /sc/content': { status: 404, body: { message: 'Not found' } } });
    render(`/cadence/7?client_id=${ACME}&integration_id=2`);
    const day1 = await screen.findByRole('region', { name: 'Day 1' });
    expect(await within(day1).findByText(NO_CONTENT_TEXT)).toBeInTheDocument();
    expect(within(day1).queryByRole('button', { name: 'Add content to Day 1' })).toBeNull();
  });

  it('"PUT /cadence/{id}/change_status … (response errors swallowed, nothing returned)": a refused move shows no toast and reads the cadence back', async () => {
    const show = vi.spyOn(notifications, 'show');
    const server = await signIn('purple_owner', {
      'PUT /sc/cadence/7/change_status': { status: 409, body: { message: 'The platform refused the move.' } },
    });
    render(`/cadence/7?client_id=${ACME}&integration_id=2`);
    const reads = () => server.calls.filter((c) => c.url.startsWith('/sc/cadence/7?')).length;
    await userEvent.click(await screen.findByRole('button', { name: 'Pause' }));
    await waitFor(() =>
      expect(server.calls.some((c) => c.url.startsWith('/sc/cadence/7/change_status'))).toBe(true),
    );
    await waitFor(() => expect(reads()).toBeGreaterThanOrEqual(2));
    expect(show).not.toHaveBeenCalled();
    expect(screen.queryByText('The platform refused the move.')).toBeNull();
    show.mockRestore();
  });

  it('a cadence of another client (404) reads as not found', async () => {
    await signIn('purple_owner', {
      'GET /sc/cadence/7': { status: 404, body: { message: 'Cadence not found.' } },
    });
    render(`/cadence/7?client_id=${ACME}&integration_id=2`);
    expect(await screen.findByText('This cadence was not found')).toBeInTheDocument();
  });

  it('finds the integration from the list when the link has none', async () => {
    const server = await signIn('purple_owner');
    render(`/cadence/7?client_id=${ACME}`);
    expect(await screen.findByRole('heading', { level: 1, name: 'Enterprise Outbound' })).toBeInTheDocument();
    expect(server.calls.some((c) => c.url === '/sc/cadence/7?integration_id=2')).toBe(true);
  });

  it('an SDR sees it read-only: no switch, no status moves, no editors', async () => {
    await signIn('yellow_sdr');
    render(`/cadence/7?client_id=${ACME}&integration_id=2`);
    expect(await screen.findByRole('region', { name: 'Day 1' })).toBeInTheDocument();
    expect(screen.getByText('Ads off')).toBeInTheDocument();
    expect(screen.queryByRole('switch')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Pause' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Sync now' })).toBeNull();
    expect(screen.queryByRole('button', { name: /Add content/ })).toBeNull();
    expect(screen.queryByRole('combobox', { name: 'Sales reps' })).toBeNull();
  });
});
