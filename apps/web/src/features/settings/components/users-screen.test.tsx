import { notifications } from '@mantine/notifications';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BUILT_IN_ROLES } from '@rally/shared';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { UsersScreen } from './users-screen.tsx';
import { acmeSession } from '../../../testing/fixtures.ts';

const ACME = '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c000002';
const DANA = '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c0000aa';
const SAM = '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c0000bb';
const INVITE = '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c0000cc';

const member = (id: string, first: string, last: string, role: keyof typeof BUILT_IN_ROLES) => ({
  id,
  email: `${first.toLowerCase()}@example.com`,
  first_name: first,
  last_name: last,
  role,
  permissions: [...BUILT_IN_ROLES[role]],
});
const invitation = {
  id: INVITE,
  email: 'new@example.com',
  role: 'green_manager',
  created_at: '2026-11-01T10:00:00.000Z',
  expires_at: '2099-11-08T10:00:00.000Z',
};

async function signIn(role: keyof typeof BUILT_IN_ROLES, routes: Parameters<typeof fakeServer>[0] = {}) {
  const server = fakeServer({
    ...acmeSession(role),
    [`GET /v1/rest/client/${ACME}/users`]: {
      body: [member(DANA, 'Dana', 'Reyes', role), member(SAM, 'Sam', 'Lee', 'yellow_sdr')],
    },
    [`GET /v1/rest/client/${ACME}/user_request/invite`]: { body: [invitation] },
    [`PATCH /v1/rest/client/${ACME}/user/${SAM}`]: { body: member(SAM, 'Sam', 'Lee', 'green_manager') },
    [`DELETE /v1/rest/user/${SAM}`]: { status: 204 },
    'POST /v1/rest/user_request': (init) => ({
      status: 201,
      body: { ...invitation, ...(JSON.parse(String(init?.body)) as object) },
    }),
    'DELETE /v1/rest/client/user_request': { status: 204 },
    ...routes,
  });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  return server;
}

function render(path: string) {
  return renderRoutes(
    [
      { path: '/settings/users', element: <UsersScreen /> },
      { path: '/settings/users/:slug', element: <UsersScreen /> },
    ],
    path,
  );
}

/** The role badge showing `name` (its colour is on the badge's root). */
const badge = (within_: HTMLElement, name: string) =>
  within(within_).getByText(name).closest('[data-colour]');

const callsTo = (server: ReturnType<typeof fakeServer>, method: string, prefix: string) =>
  server.calls.filter((c) => (c.init?.method ?? 'GET') === method && c.url.startsWith(prefix));

/**
 * Opens a Select and returns its listbox. jsdom has no layout, so Floating UI deems the Select
 * hidden and its dropdown gets display: none; the options are there and react to clicks, so they
 * are reached with `hidden: true`.
 */
async function openSelect(user: ReturnType<typeof userEvent.setup>, combobox: HTMLElement) {
  await user.click(combobox);
  await waitFor(() => expect(combobox).toHaveAttribute('aria-controls'));
  return within(document.getElementById(combobox.getAttribute('aria-controls')!)!);
}

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

describe('UsersScreen: members', () => {
  it('lists the members with their role badges', async () => {
    await signIn('purple_owner');
    render(`/settings/users?client_id=${ACME}`);
    expect(screen.getByRole('tab', { name: 'Members' })).toHaveAttribute('aria-selected', 'true');
    const table = await screen.findByRole('table', { name: 'Members' });
    const sam = within(table).getByRole('row', { name: /Sam Lee/ });
    expect(within(sam).getByText('sam@example.com')).toBeInTheDocument();
    expect(badge(sam, 'sdr')).toHaveAttribute('data-colour', 'yellow');
    const dana = within(table).getByRole('row', { name: /Dana Reyes/ });
    expect(badge(dana, 'owner')).toHaveAttribute('data-colour', 'purple');
    expect(within(dana).getByText('You')).toBeInTheDocument();
    // No one removes themselves, and the only owner stays one (the server would answer 409).
    expect(within(dana).getByRole('button', { name: 'Remove Dana Reyes' })).toBeDisabled();
    expect(within(dana).getByRole('combobox', { name: 'Role of Dana Reyes' })).toBeDisabled();
    expect(within(sam).getByRole('combobox', { name: 'Role of Sam Lee' })).toBeEnabled();
  });

  it('changes a role with the Select of built-in roles', async () => {
    const server = await signIn('purple_owner');
    const user = userEvent.setup();
    render(`/settings/users?client_id=${ACME}`);
    const roles = await openSelect(user, await screen.findByRole('combobox', { name: 'Role of Sam Lee' }));
    await user.click(roles.getByRole('option', { name: /Manager/, hidden: true }));
    expect(await screen.findByText('Sam Lee is now a Manager.')).toBeInTheDocument();
    const [patch] = callsTo(server, 'PATCH', `/v1/rest/client/${ACME}/user/${SAM}`);
    expect(JSON.parse(String(patch?.init?.body))).toEqual({ role: 'green_manager' });
    // The list is fetched again.
    await waitFor(() => expect(callsTo(server, 'GET', `/v1/rest/client/${ACME}/users`)).toHaveLength(2));
  });

  it('lets only an owner grant the owner role', async () => {
    await signIn('blue_admin');
    const user = userEvent.setup();
    render(`/settings/users?client_id=${ACME}`);
    const roles = await openSelect(user, await screen.findByRole('combobox', { name: 'Role of Sam Lee' }));
    expect(roles.getByRole('option', { name: /Owner/, hidden: true })).toHaveAttribute(
      'aria-disabled',
      'true',
    );
  });

  it('removes a member after a confirmation', async () => {
    const server = await signIn('purple_owner');
    const user = userEvent.setup();
    render(`/settings/users?client_id=${ACME}`);
    await user.click(await screen.findByRole('button', { name: 'Remove Sam Lee' }));
    const dialog = await screen.findByRole('dialog', { name: 'Remove member' });
    expect(dialog).toHaveTextContent('Remove Sam Lee (sam@example.com) from Acme?');
    expect(callsTo(server, 'DELETE', '/v1/rest/user/')).toHaveLength(0);
    await user.click(within(dialog).getByRole('button', { name: 'Remove' }));
    expect(await screen.findByText('Sam Lee was removed from Acme.')).toBeInTheDocument();
    expect(callsTo(server, 'DELETE', `/v1/rest/user/${SAM}`)).toHaveLength(1);
  });

  it('shows the table read-only without users.write', async () => {
    await signIn('green_manager');
    render(`/settings/users?client_id=${ACME}`);
    const table = await screen.findByRole('table', { name: 'Members' });
    expect(within(table).queryByRole('columnheader', { name: 'Actions' })).not.toBeInTheDocument();
    expect(screen.queryByRole('combobox', { name: /Role of/ })).not.toBeInTheDocument();
  });

  it('explains, instead of the tables, when the role lacks users.read', async () => {
    const server = await signIn('yellow_sdr');
    render(`/settings/users?client_id=${ACME}`);
    expect(screen.getByText('You cannot see the users here')).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
    expect(callsTo(server, 'GET', `/v1/rest/client/${ACME}/users`)).toHaveLength(0);
  });

  it('shows an error with a way to try again when the list fails', async () => {
    await signIn('purple_owner', {
      [`GET /v1/rest/client/${ACME}/users`]: { status: 400, body: { message: 'The list is unavailable.' } },
    });
    render(`/settings/users?client_id=${ACME}`);
    expect(await screen.findByText('Could not load the members')).toBeInTheDocument();
    expect(screen.getAllByText('The list is unavailable.').length).toBeGreaterThan(0);
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });

  it('switches tabs by path, keeping client_id', async () => {
    await signIn('purple_owner');
    const user = userEvent.setup();
    const { router } = render(`/settings/users?client_id=${ACME}`);
    await user.click(screen.getByRole('tab', { name: 'Pending invitations' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/settings/users/pending'));
    expect(router.state.location.search).toBe(`?client_id=${ACME}`);
    await user.click(screen.getByRole('tab', { name: 'Members' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/settings/users'));
  });

  it('treats any slug but pending as the members tab', async () => {
    await signIn('purple_owner');
    render(`/settings/users/index?client_id=${ACME}`);
    expect(screen.getByRole('tab', { name: 'Members' })).toHaveAttribute('aria-selected', 'true');
    expect(await screen.findByRole('table', { name: 'Members' })).toBeInTheDocument();
  });
});

describe('UsersScreen: pending invitations', () => {
  it('lists invitations; Resend posts the same address and role again, Revoke deletes', async () => {
    const server = await signIn('purple_owner');
    const user = userEvent.setup();
    render(`/settings/users/pending?client_id=${ACME}`);
    const table = await screen.findByRole('table', { name: 'Pending invitations' });
    const row = within(table).getByRole('row', { name: /new@example.com/ });
    expect(badge(row, 'manager')).toHaveAttribute('data-colour', 'green');
    expect(within(row).getByText('Nov 8, 2099')).toBeInTheDocument();

    await user.click(within(row).getByRole('button', { name: /^Resend/ }));
    expect(await screen.findByText('Invitation resent to new@example.com.')).toBeInTheDocument();
    const [post] = callsTo(server, 'POST', '/v1/rest/user_request');
    expect(JSON.parse(String(post?.init?.body))).toEqual({ email: 'new@example.com', role: 'green_manager' });

    await user.click(within(row).getByRole('button', { name: /^Revoke/ }));
    expect(await screen.findByText('The invitation to new@example.com was revoked.')).toBeInTheDocument();
    expect(callsTo(server, 'DELETE', `/v1/rest/client/user_request?id=${INVITE}`)).toHaveLength(1);
  });

  it('invites by e-mail with a role', async () => {
    const server = await signIn('purple_owner');
    const user = userEvent.setup();
    render(`/settings/users/pending?client_id=${ACME}`);
    const form = screen.getByRole('region', { name: 'Invite someone' });
    await user.type(within(form).getByLabelText('Email'), 'Kim@Example.com');
    const roles = await openSelect(user, within(form).getByRole('combobox', { name: 'Role' }));
    await user.click(roles.getByRole('option', { name: /Admin/, hidden: true }));
    await user.click(within(form).getByRole('button', { name: 'Send invitation' }));
    expect(await screen.findByText('Invitation sent to kim@example.com.')).toBeInTheDocument();
    const [post] = callsTo(server, 'POST', '/v1/rest/user_request');
    expect(JSON.parse(String(post?.init?.body))).toEqual({ email: 'kim@example.com', role: 'blue_admin' });
    expect(within(form).getByLabelText('Email')).toHaveValue('');
  });

  it("shows the server's answer inline when the address is already a member", async () => {
    await signIn('purple_owner', {
      'POST /v1/rest/user_request': {
        status: 409,
        body: { message: 'sam@example.com is already a member of this client.' },
      },
    });
    const user = userEvent.setup();
    render(`/settings/users/pending?client_id=${ACME}`);
    const form = screen.getByRole('region', { name: 'Invite someone' });
    await user.type(within(form).getByLabelText('Email'), 'sam@example.com');
    await user.click(within(form).getByRole('button', { name: 'Send invitation' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent(
      'sam@example.com is already a member of this client.',
    );
  });

  it('checks the address before sending', async () => {
    const server = await signIn('purple_owner');
    const user = userEvent.setup();
    render(`/settings/users/pending?client_id=${ACME}`);
    const form = screen.getByRole('region', { name: 'Invite someone' });
    await user.type(within(form).getByLabelText('Email'), 'not-an-address');
    await user.click(within(form).getByRole('button', { name: 'Send invitation' }));
    expect(await within(form).findByText('Enter a valid e-mail address')).toBeInTheDocument();
    expect(callsTo(server, 'POST', '/v1/rest/user_request')).toHaveLength(0);
  });

  it('shows an empty state, and no invite form without users.write', async () => {
    await signIn('green_manager', { [`GET /v1/rest/client/${ACME}/user_request/invite`]: { body: [] } });
    render(`/settings/users/pending?client_id=${ACME}`);
    expect(await screen.findByText('No pending invitations')).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Invite someone' })).not.toBeInTheDocument();
  });
});
