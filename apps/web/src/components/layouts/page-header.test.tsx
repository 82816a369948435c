import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Membership } from '@rally/shared/schemas/auth';
import { loadSession, resetAuth } from '../../lib/auth/store.ts';
import { LinkPrefetchContext, SCHEDULED_PREFETCH_MS } from '../../lib/link-prefetch.ts';
import { CLIENT_IDS, selfFixture } from '../../testing/fixtures.ts';
import { fakeServer, renderRoutes } from '../../testing/render.tsx';
import { PageHeader } from './page-header.tsx';

const { northwind: NORTHWIND, acme: ACME } = CLIENT_IDS;

async function signIn(memberships: Membership[]) {
  const self = selfFixture(memberships);
  const server = fakeServer({
    '/v1/api/user/self': { body: self },
    '/v1/rest/client': {
      body: memberships.map((m) => ({
        id: m.client_id,
        name: m.client_name,
        parent_id: null,
        role: m.role,
        is_default: m.is_default,
      })),
    },
    [`/v1/rest/client/${NORTHWIND}/integrations`]: { body: [] },
    [`/v1/rest/client/${ACME}/integrations`]: { body: [] },
  });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
}

const owner: Membership = {
  client_id: NORTHWIND,
  client_name: 'Northwind Agency',
  is_default: true,
  role: 'purple_owner',
  permissions: ['client.read', 'billing_details.read', 'users.read'],
};
const sdr: Membership = {
  client_id: ACME,
  client_name: 'Acme Robotics',
  is_default: false,
  role: 'yellow_sdr',
  permissions: ['reports.read'],
};

function renderHeader(path: string, prefetchModule = vi.fn()) {
  const view = renderRoutes(
    [
      {
        path: '*',
        element: (
          <LinkPrefetchContext value={{ prefetchModule }}>
            <PageHeader />
          </LinkPrefetchContext>
        ),
      },
    ],
    path,
  );
  return { ...view, prefetchModule };
}

afterEach(() => {
  vi.useRealTimers();
  resetAuth();
  vi.unstubAllGlobals();
});

describe('PageHeader (SPEC.md §2 "Header and navigation")', () => {
  it('"Links carry client_id of the current client"; Clients with client.read; the cog to /settings/billing', async () => {
    await signIn([owner, sdr]);
    renderHeader(`/feed?client_id=${NORTHWIND}`);
    const nav = screen.getAllByRole('navigation', { name: 'Main' })[0]!;
    const hrefs = within(nav)
      .getAllByRole('link')
      .map((a) => [a.textContent, a.getAttribute('href')]);
    expect(hrefs).toEqual([
      ['Feed', `/feed?client_id=${NORTHWIND}`],
      ['Cadences', `/cadence?client_id=${NORTHWIND}`],
      ['Prospects', `/prospects?client_id=${NORTHWIND}`],
      ['Revenue', `/revenue?client_id=${NORTHWIND}`],
      ['Cohorts', `/cohorts?client_id=${NORTHWIND}`],
      ['Content', `/content?client_id=${NORTHWIND}`],
      ['Clients', `/clients?client_id=${NORTHWIND}`],
    ]);
    expect(screen.getByRole('link', { name: 'Settings' })).toHaveAttribute(
      'href',
      `/settings/billing?client_id=${NORTHWIND}`,
    );
  });

  it('"Clients is shown only when the role has client.read"; otherwise the cog goes to /settings/connections', async () => {
    await signIn([{ ...sdr, is_default: true }]);
    renderHeader(`/feed?client_id=${ACME}`);
    const nav = screen.getAllByRole('navigation', { name: 'Main' })[0]!;
    expect(
      within(nav)
        .getAllByRole('link')
        .map((a) => a.textContent),
      // Reports (issue 17) with reports.read, which an SDR has.
    ).toEqual(['Feed', 'Cadences', 'Prospects', 'Revenue', 'Reports', 'Cohorts', 'Content']);
    expect(screen.getByRole('link', { name: 'Settings' })).toHaveAttribute(
      'href',
      `/settings/connections?client_id=${ACME}`,
    );
    // One client: no switcher.
    expect(screen.queryByRole('button', { name: 'Switch client' })).not.toBeInTheDocument();
  });

  it('Clients stays in a client where the agency owner has no client.read (issue 42 item 13)', async () => {
    await signIn([
      { ...owner, is_default: false },
      { ...sdr, is_default: true },
    ]);
    renderHeader(`/feed?client_id=${ACME}`);
    const nav = screen.getAllByRole('navigation', { name: 'Main' })[0]!;
    expect(within(nav).getByRole('link', { name: 'Clients' })).toHaveAttribute(
      'href',
      `/clients?client_id=${ACME}`,
    );
  });

  it('"Payload prefetch scheduled 1000 ms after mount" (SPEC.md §9): the code of every header link', async () => {
    await signIn([owner, sdr]);
    vi.useFakeTimers();
    const { prefetchModule } = renderHeader(`/feed?client_id=${NORTHWIND}`);
    act(() => vi.advanceTimersByTime(SCHEDULED_PREFETCH_MS - 1));
    expect(prefetchModule).not.toHaveBeenCalled();
    act(() => vi.advanceTimersByTime(1));
    expect(prefetchModule.mock.calls.map(([href]) => href)).toEqual([
      `/feed?client_id=${NORTHWIND}`,
      `/cadence?client_id=${NORTHWIND}`,
      `/prospects?client_id=${NORTHWIND}`,
      `/revenue?client_id=${NORTHWIND}`,
      `/cohorts?client_id=${NORTHWIND}`,
      `/content?client_id=${NORTHWIND}`,
      `/clients?client_id=${NORTHWIND}`,
      `/settings/billing?client_id=${NORTHWIND}`,
    ]);
  });

  it('schedules nothing while logged out', async () => {
    vi.useFakeTimers();
    const { prefetchModule } = renderHeader('/legal/terms');
    act(() => vi.advanceTimersByTime(SCHEDULED_PREFETCH_MS * 2));
    expect(prefetchModule).not.toHaveBeenCalled();
    expect(screen.getByRole('link', { name: 'Sign Up' })).toHaveAttribute('href', '/register');
    expect(screen.queryByRole('button', { name: 'Open navigation' })).not.toBeInTheDocument();
  });

  it('the burger opens a drawer with the navigation; a link there navigates and closes it', async () => {
    await signIn([owner, sdr]);
    const user = userEvent.setup();
    const { router } = renderHeader(`/feed?client_id=${NORTHWIND}`);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Open navigation' }));
    const drawer = await screen.findByRole('dialog');
    expect(within(drawer).getByText('Northwind Agency')).toBeInTheDocument();
    expect(within(drawer).getByRole('link', { name: 'Settings' })).toHaveAttribute(
      'href',
      `/settings/billing?client_id=${NORTHWIND}`,
    );
    await user.click(within(drawer).getByRole('link', { name: 'Revenue' }));
    expect(router.state.location.pathname).toBe('/revenue');
    expect(router.state.location.search).toBe(`?client_id=${NORTHWIND}`);
    // The drawer closes with a transition; a machine busy with other suites takes its time.
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument(), { timeout: 10_000 });
  });
});
