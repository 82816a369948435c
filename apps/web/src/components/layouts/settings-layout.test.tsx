import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadSession, resetAuth } from '../../lib/auth/store.ts';
import { acmeSession, CLIENT_IDS } from '../../testing/fixtures.ts';
import type { Role } from '../../testing/fixtures.ts';
import { fakeServer, renderRoutes } from '../../testing/render.tsx';
import { SettingsLayout } from './settings-layout.tsx';

const ACME = CLIENT_IDS.acme;

/** The layout around a page that names its path, as the router nests every settings route. */
async function show(path: string, role: Role) {
  vi.stubGlobal('fetch', fakeServer(acmeSession(role)).fetchFn);
  await loadSession();
  return renderRoutes(
    [{ Component: SettingsLayout, children: [{ path: '*', element: <p>page body</p> }] }],
    `${path}?client_id=${ACME}`,
  );
}

const sideNav = () => screen.getByRole('navigation', { name: 'Settings' });
const groupTitles = () =>
  within(sideNav())
    .getAllByRole('group')
    .map((g) => document.getElementById(g.getAttribute('aria-labelledby') ?? '')?.textContent);
const linkNames = () =>
  within(sideNav())
    .getAllByRole('link')
    .map((a) => a.textContent);

afterEach(() => {
  resetAuth();
  vi.unstubAllGlobals();
});

describe('SettingsLayout (issue 42 item 2)', () => {
  it('an owner sees every page, grouped Workspace, Client and Integrations, each keeping the client', async () => {
    await show('/settings/billing', 'purple_owner');
    expect(screen.getByText('page body')).toBeInTheDocument();
    expect(groupTitles()).toEqual(['Workspace', 'Client', 'Integrations']);
    expect(linkNames()).toEqual([
      'Profile',
      'Users',
      'Billing',
      'Audit log',
      'Brand & website',
      'Facebook',
      'Sales reps',
      'Notifications',
      'Domains & sign-in',
      'Suppression list',
      'Webhooks',
      'Connections',
      'Ad networks',
    ]);
    const billing = within(sideNav()).getByRole('link', { name: 'Billing' });
    expect(billing).toHaveAttribute('aria-current', 'page');
    expect(billing).toHaveAttribute('href', `/settings/billing?client_id=${ACME}`);
    expect(within(sideNav()).getByRole('link', { name: 'Domains & sign-in' })).toHaveAttribute(
      'href',
      `/settings/domain?client_id=${ACME}`,
    );
  });

  it('an admin is not offered the audit log, which is for owners (issue 44)', async () => {
    await show('/settings/users', 'blue_admin');
    expect(linkNames()).toContain('Users');
    expect(linkNames()).not.toContain('Audit log');
  });

  it('an SDR is not offered Users or Billing, which would only show the error page', async () => {
    await show('/settings/connections', 'yellow_sdr');
    expect(linkNames()).not.toContain('Billing');
    expect(linkNames()).not.toContain('Users');
    expect(linkNames()).toContain('Connections');
    expect(within(sideNav()).getByRole('link', { name: 'Connections' })).toHaveAttribute(
      'aria-current',
      'page',
    );
  });

  it('a sub-page marks its page: a connection’s settings mark Connections, the webhooks mark Webhooks', async () => {
    const { router } = await show('/settings/integrations/salesforce', 'purple_owner');
    expect(within(sideNav()).getByRole('link', { name: 'Connections' })).toHaveAttribute(
      'aria-current',
      'page',
    );
    await router.navigate(`/settings/integrations/webhooks?client_id=${ACME}`);
    await waitFor(() =>
      expect(within(sideNav()).getByRole('link', { name: 'Webhooks' })).toHaveAttribute(
        'aria-current',
        'page',
      ),
    );
    expect(within(sideNav()).getByRole('link', { name: 'Connections' })).not.toHaveAttribute('aria-current');
  });

  it('the phone menu names the current page and lists the same pages; choosing one opens it', async () => {
    const { router } = await show('/settings/profile', 'green_manager');
    const user = userEvent.setup();
    const button = screen.getByRole('button', { name: 'Settings: Profile' });
    // The dropdown fades in: its items are found once shown (over 5 s on CI's two loaded cores once,
    // over 15 s at load 15 in the CI-like run of 2026-12-06). In a later one the menu stayed shut for
    // 30 s after the click, twice: clicked again only while the button says it is closed, as a
    // person would (a click while open would close it).
    await waitFor(
      async () => {
        if (button.getAttribute('aria-expanded') !== 'true') await user.click(button);
        expect(button).toHaveAttribute('aria-expanded', 'true');
      },
      { timeout: 30_000, interval: 1_000 },
    );
    // jsdom lays nothing out: every box is 0×0 at 0,0, so once floating-ui has placed the open
    // dropdown its hide middleware finds the button "fully clipped" and Mantine's hideDetached sets
    // display: none on it (seen in the failures: opacity 1, display none). Whether that came before
    // this query was a race the loaded machine lost; the item is taken whether or not jsdom shows it
    // (in a browser, with layout, e2e walks the phone menu).
    const item = await screen.findByRole(
      'menuitem',
      { name: 'Notifications', hidden: true },
      { timeout: 30_000 },
    );
    const menu = item.closest('[role="menu"]') as HTMLElement;
    expect(within(menu).getByText('Users')).toBeInTheDocument();
    expect(within(menu).queryByText('Billing')).toBeNull();
    await user.click(item);
    await waitFor(() => expect(router.state.location.pathname).toBe('/client-settings/notifications'));
    expect(router.state.location.search).toBe(`?client_id=${ACME}`);
  }, 90_000);

  it('signed out, only the page (the gate sends the user on to /login)', async () => {
    vi.stubGlobal('fetch', fakeServer({ '/v1/api/user/self': { status: 401, body: {} } }).fetchFn);
    await loadSession();
    renderRoutes(
      [{ Component: SettingsLayout, children: [{ path: '*', element: <p>page body</p> }] }],
      '/settings/profile',
    );
    expect(screen.getByText('page body')).toBeInTheDocument();
    expect(screen.queryByRole('navigation', { name: 'Settings' })).toBeNull();
  });
});
