import { notifications } from '@mantine/notifications';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Suppression } from '@rally/shared/schemas/suppressions';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import type { Role, Routes } from '../../../testing/fixtures.ts';
import { SuppressionListScreen } from './suppression-list-screen.tsx';

/** Issue 44: Settings › Suppression list as an owner works it, and its loading, empty and error states. */
const ACME = CLIENT_IDS.acme;
const BASE = `/v1/rest/client/${ACME}/suppressions`;

const entry = (patch: Partial<Suppression> = {}): Suppression => ({
  id: '7',
  email: 'ann@example.com',
  source: 'opt_out',
  reason: 'Stopped the ads on the "Why am I seeing this?" page',
  created_by: null,
  created_by_name: null,
  created_at: '2026-12-01T10:00:00.000Z',
  removed_at: null,
  removed_by_name: null,
  removed_reason: null,
  ...patch,
});
const page = (items: Suppression[]) => ({ items, total: items.length, next_cursor: null });

async function signIn(role: Role, routes: Routes) {
  const server = fakeServer({ ...acmeSession(role), ...routes });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  return server;
}

const render = (canWrite = true) =>
  renderRoutes(
    [
      {
        path: '/settings/suppressions',
        element: <SuppressionListScreen clientId={ACME} canWrite={canWrite} />,
      },
    ],
    `/settings/suppressions?client_id=${ACME}`,
  );

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

describe('Suppression list', () => {
  it('an owner sees the empty list, adds an address (a bad one is named first), and removes one with a reason', async () => {
    const user = userEvent.setup();
    let items: Suppression[] = [];
    const server = await signIn('purple_owner', {
      [`GET ${BASE}`]: () => ({ body: page(items) }),
      [`POST ${BASE}`]: () => {
        const added = entry({
          id: '8',
          email: 'bo@example.com',
          source: 'manual',
          reason: '',
          created_by_name: 'Ola Owner',
        });
        items = [added, entry()];
        return { status: 201, body: { suppression: added, created: true } };
      },
      [`POST ${BASE}/7/remove`]: () => {
        items = items.filter((i) => i.id !== '7');
        return { body: entry({ removed_at: new Date().toISOString(), removed_reason: 'Asked again' }) };
      },
    });
    render();
    expect(await screen.findByText('No one is on the list')).toBeInTheDocument();

    await user.type(screen.getByRole('textbox', { name: 'E-mail address' }), 'not an address');
    await user.click(screen.getByRole('button', { name: 'Add to the list' }));
    expect(await screen.findByText('This must be an e-mail address')).toBeInTheDocument();
    expect(server.calls.some((c) => c.init?.method === 'POST')).toBe(false);

    await user.clear(screen.getByRole('textbox', { name: 'E-mail address' }));
    await user.type(screen.getByRole('textbox', { name: 'E-mail address' }), 'bo@example.com');
    await user.click(screen.getByRole('button', { name: 'Add to the list' }));
    expect(await screen.findByText('bo@example.com is on the list')).toBeInTheDocument();
    expect(await screen.findByRole('cell', { name: 'ann@example.com' })).toBeInTheDocument();
    expect(screen.getByText('2 people on the list')).toBeInTheDocument();
    expect(screen.getByText('Opted out')).toBeInTheDocument();
    expect(screen.getByText('The prospect')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Remove ann@example.com from the list' }));
    const dialog = await screen.findByRole('dialog', { name: 'Take this person off the list?' });
    await user.click(within(dialog).getByRole('button', { name: 'Remove from the list' }));
    expect(await within(dialog).findByText('Say why this person may be shown ads again')).toBeInTheDocument();
    await user.type(within(dialog).getByRole('textbox', { name: /Reason/ }), 'Asked again');
    await user.click(within(dialog).getByRole('button', { name: 'Remove from the list' }));
    await waitFor(() => expect(screen.queryByRole('cell', { name: 'ann@example.com' })).toBeNull());
    const removal = server.calls.find((c) => c.url === `${BASE}/7/remove`);
    expect(JSON.parse(String(removal?.init?.body))).toEqual({ reason: 'Asked again' });
  });

  it('shows why the list could not be loaded and asks again', async () => {
    const user = userEvent.setup();
    let refuse = true;
    await signIn('purple_owner', {
      [`GET ${BASE}`]: () =>
        refuse
          ? {
              status: 403,
              body: { message: 'Access Denied: your role does not have the settings.write permission.' },
            }
          : { body: page([entry()]) },
    });
    render();
    expect(await screen.findByText('Could not load the suppression list')).toBeInTheDocument();
    refuse = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('cell', { name: 'ann@example.com' })).toBeInTheDocument();
  });

  it('uploads a CSV and says what was added and what was not an address', async () => {
    const user = userEvent.setup();
    const server = await signIn('purple_owner', {
      [`GET ${BASE}`]: { body: page([]) },
      [`POST ${BASE}/upload`]: {
        body: { added: 2, already: 1, invalid: [{ line: 4, value: 'nope' }], invalid_count: 1 },
      },
    });
    const { container } = render();
    await screen.findByText('No one is on the list');
    const input = container.ownerDocument.querySelector('input[type="file"]') as HTMLInputElement;
    await user.upload(input, new File(['a@example.com\n'], 'list.csv', { type: 'text/csv' }));
    expect(
      await screen.findByText('2 added, 1 already on the list, 1 not an address (line 4: “nope”)'),
    ).toBeInTheDocument();
    expect(server.calls.some((c) => c.url === `${BASE}/upload` && c.init?.body instanceof FormData)).toBe(
      true,
    );
  });

  it('a member without settings.write is told why, and nothing is asked of the server', async () => {
    const server = await signIn('green_manager', {});
    render(false);
    expect(await screen.findByText(/Only owners and admins of this client/)).toBeInTheDocument();
    expect(server.calls.some((c) => c.url.startsWith(BASE))).toBe(false);
  });
});
