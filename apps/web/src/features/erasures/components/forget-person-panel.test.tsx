import { notifications } from '@mantine/notifications';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Erasure } from '@rally/shared/schemas/erasures';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import type { Routes } from '../../../testing/fixtures.ts';
import { ForgetPersonPanel } from './forget-person-panel.tsx';

/**
 * Issue 44: "'Forget this person' by e-mail address (screen for owners, API)". The panel under
 * Settings › Suppression list: confirmation, loading, empty, error, and the records without addresses.
 */
const ACME = CLIENT_IDS.acme;
const BASE = `/v1/rest/client/${ACME}/erasures`;

const record = (patch: Partial<Erasure> = {}): Erasure => ({
  id: '1',
  email_hash: 'a'.repeat(64),
  erased_at: '2026-12-01T10:00:00.000Z',
  erased_by: 'u1',
  erased_by_name: 'Ola Owner',
  counts: {
    prospects: 1,
    targets: 2,
    events: 7,
    uncounted_events: 1,
    crm_contacts: 1,
    cohort_memberships: 1,
    journey_memberships: 0,
    feed_items: 1,
    export_files: 0,
    outbox_messages: 0,
    webhook_deliveries: 0,
    audience_members: 1,
    crm_write_backs: 0,
  },
  ...patch,
});

async function signIn(routes: Routes) {
  const server = fakeServer({ ...acmeSession('purple_owner'), ...routes });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  return server;
}

const render = () =>
  renderRoutes(
    [{ path: '/settings/suppressions', element: <ForgetPersonPanel clientId={ACME} /> }],
    `/settings/suppressions?client_id=${ACME}`,
  );

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

describe('Forget a person', () => {
  it('an owner names a bad address, confirms by typing the address again, and sees the record without it', async () => {
    const user = userEvent.setup();
    let items: Erasure[] = [];
    const server = await signIn({
      [`GET ${BASE}`]: () => ({ body: { items } }),
      [`POST ${BASE}`]: () => {
        items = [record()];
        return { status: 201, body: { erasure: record(), created: true } };
      },
    });
    render();
    expect(await screen.findByText('No one has been forgotten')).toBeInTheDocument();

    const input = screen.getByRole('textbox', { name: 'Address of the person to forget' });
    await user.type(input, 'not an address');
    await user.click(screen.getByRole('button', { name: 'Forget this person…' }));
    expect(await screen.findByText('This must be an e-mail address')).toBeInTheDocument();

    await user.clear(input);
    await user.type(input, 'Kendall@Example.com');
    await user.click(screen.getByRole('button', { name: 'Forget this person…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Forget this person for good?' });
    await user.type(
      within(dialog).getByRole('textbox', { name: 'Type the address again' }),
      'someone@else.com',
    );
    await user.click(within(dialog).getByRole('button', { name: 'Forget for good' }));
    expect(await within(dialog).findByText('Type the same address to confirm')).toBeInTheDocument();
    expect(server.calls.some((c) => c.init?.method === 'POST')).toBe(false);

    await user.clear(within(dialog).getByRole('textbox', { name: 'Type the address again' }));
    await user.type(
      within(dialog).getByRole('textbox', { name: 'Type the address again' }),
      'kendall@example.com',
    );
    await user.click(within(dialog).getByRole('button', { name: 'Forget for good' }));
    expect(
      await screen.findByText(/Forgotten\. Removed: 1 prospect, 2 targets, 8 events/),
    ).toBeInTheDocument();
    const post = server.calls.find((c) => c.url === BASE && c.init?.method === 'POST');
    expect(JSON.parse(String(post?.init?.body))).toEqual({ email: 'Kendall@Example.com', confirm: true });

    const table = await screen.findByRole('table', { name: 'Erasure records' });
    expect(within(table).getByText('Ola Owner')).toBeInTheDocument();
    expect(within(table).getByText('1 prospect, 2 targets, 8 events, 1 CRM contact')).toBeInTheDocument();
    expect(table.textContent?.toLowerCase()).not.toContain('kendall');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('shows the server refusing (only owners) in the dialog', async () => {
    const user = userEvent.setup();
    await signIn({
      [`GET ${BASE}`]: { body: { items: [] } },
      [`POST ${BASE}`]: {
        status: 403,
        body: {
          message:
            'Access Denied: only an owner of this client can erase a person, because it cannot be undone.',
        },
      },
    });
    render();
    await screen.findByText('No one has been forgotten');
    await user.type(
      screen.getByRole('textbox', { name: 'Address of the person to forget' }),
      'a@example.com',
    );
    await user.click(screen.getByRole('button', { name: 'Forget this person…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Forget this person for good?' });
    await user.type(within(dialog).getByRole('textbox', { name: 'Type the address again' }), 'a@example.com');
    await user.click(within(dialog).getByRole('button', { name: 'Forget for good' }));
    expect(
      await within(dialog).findByText(/only an owner of this client can erase a person/),
    ).toBeInTheDocument();
  });

  it('shows loading, then why the records could not be loaded, and asks again', async () => {
    const user = userEvent.setup();
    let refuse = true;
    await signIn({
      [`GET ${BASE}`]: () =>
        refuse
          ? {
              status: 403,
              body: { message: 'Access Denied: only an owner of this client can erase a person.' },
            }
          : { body: { items: [record()] } },
    });
    render();
    expect(screen.getByRole('status', { name: 'Loading the erasure records' })).toBeInTheDocument();
    expect(await screen.findByText('Could not load the erasure records')).toBeInTheDocument();
    refuse = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('table', { name: 'Erasure records' })).toBeInTheDocument();
  });
});
