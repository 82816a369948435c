import { notifications } from '@mantine/notifications';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ClientDomain } from '@rally/shared/schemas/domains';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import type { Role, Routes } from '../../../testing/fixtures.ts';
import { VerifiedDomainsPanel } from './verified-domains-panel.tsx';

/** Issue 37.1: the verified domains panel as an owner works it and as other members read it. */
const ACME = CLIENT_IDS.acme;
const BASE = `/v1/rest/client/${ACME}/domains`;
const TXT = 'rally-verification=4c0b1a1e9f2d4e7c8a6b5d3f2e1c0b9a';
const ID = '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c0000d1';

const domain = (patch: Partial<ClientDomain> = {}): ClientDomain => ({
  id: ID,
  domain: 'acme.com',
  verified: false,
  verified_at: null,
  last_checked_at: null,
  last_check_message: null,
  dns_record: { type: 'TXT', name: '_rally.acme.com', value: TXT },
  created_at: '2026-12-01T10:00:00.000Z',
  ...patch,
});

async function signIn(role: Role, routes: Routes) {
  const server = fakeServer({ ...acmeSession(role), ...routes });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  return server;
}

const render = (canWrite: boolean) =>
  renderRoutes(
    [{ path: '/settings/domain', element: <VerifiedDomainsPanel clientId={ACME} canWrite={canWrite} /> }],
    `/settings/domain?client_id=${ACME}`,
  );

const region = () => screen.findByRole('region', { name: 'Verified domains' });

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

describe('Verified domains', () => {
  it('an owner adds a domain, sees the TXT record to create, verifies it and removes it', async () => {
    const user = userEvent.setup();
    let list = { txt_value: TXT, domains: [] as ClientDomain[] };
    const server = await signIn('purple_owner', {
      [`GET ${BASE}`]: () => ({ body: list }),
      [`POST ${BASE}`]: () => {
        list = { ...list, domains: [domain()] };
        return { status: 201, body: domain() };
      },
      [`POST ${BASE}/${ID}/verify`]: {
        body: domain({
          verified: true,
          verified_at: new Date().toISOString(),
          last_checked_at: new Date().toISOString(),
          last_check_message: '_rally.acme.com has the record: acme.com is verified.',
        }),
      },
      [`DELETE ${BASE}/${ID}`]: { status: 204 },
    });
    render(true);
    const panel = await region();
    expect(await within(panel).findByText('No verified domains yet')).toBeInTheDocument();

    await user.type(within(panel).getByRole('textbox', { name: /Domain to verify/ }), 'not a domain');
    await user.click(within(panel).getByRole('button', { name: 'Add' }));
    expect(await within(panel).findByText(/This must be a host name/)).toBeInTheDocument();
    expect(server.calls.some((c) => c.init?.method === 'POST')).toBe(false);

    await user.clear(within(panel).getByRole('textbox', { name: /Domain to verify/ }));
    await user.type(within(panel).getByRole('textbox', { name: /Domain to verify/ }), 'Acme.com');
    await user.click(within(panel).getByRole('button', { name: 'Add' }));
    const card = await within(panel).findByRole('article', { name: 'acme.com' });
    expect(within(card).getByText('Not verified')).toBeInTheDocument();
    expect(within(card).getByText('Not checked yet.')).toBeInTheDocument();
    const record = within(card).getByRole('table', { name: 'TXT record for acme.com' });
    expect(within(record).getByText('_rally.acme.com')).toBeInTheDocument();
    expect(within(record).getByText(TXT)).toBeInTheDocument();
    expect(within(record).getByRole('button', { name: 'Copy the record name for acme.com' })).toBeEnabled();
    expect(within(record).getByRole('button', { name: 'Copy the record value for acme.com' })).toBeEnabled();

    await user.click(within(card).getByRole('button', { name: 'Verify now' }));
    expect(await within(card).findByText('Verified')).toBeInTheDocument();
    expect(within(card).getByRole('status')).toHaveTextContent(
      /Last checked .*: _rally\.acme\.com has the record: acme\.com is verified\./,
    );

    await user.click(within(card).getByRole('button', { name: 'Remove acme.com' }));
    const dialog = await screen.findByRole('dialog', { name: 'Remove acme.com?' });
    expect(dialog).toHaveTextContent(/Single sign-on stops signing in addresses at acme\.com/);
    await user.click(within(dialog).getByRole('button', { name: 'Remove' }));
    await waitFor(() => expect(within(panel).queryByRole('article')).toBeNull());
    expect(server.calls.some((c) => c.init?.method === 'DELETE' && c.url === `${BASE}/${ID}`)).toBe(true);
  });

  it('shows the server refusing a domain that is there already on the field', async () => {
    const user = userEvent.setup();
    const server = await signIn('blue_admin', {
      [`GET ${BASE}`]: { body: { txt_value: TXT, domains: [domain()] } },
      [`POST ${BASE}`]: {
        status: 409,
        body: {
          message: 'Conflict',
          errors: [{ field: 'body.domain', message: "acme.com is already one of this client's domains" }],
        },
      },
    });
    render(true);
    const panel = await region();
    await user.type(await within(panel).findByRole('textbox', { name: /Domain to verify/ }), 'acme.com');
    await user.click(within(panel).getByRole('button', { name: 'Add' }));
    expect(
      await within(panel).findByText("acme.com is already one of this client's domains"),
    ).toBeInTheDocument();
    // A 409 is an answer, not asked again.
    expect(server.calls.filter((c) => c.init?.method === 'POST')).toHaveLength(1);
  });

  it('a member without settings.write reads the domains and what their last check found, and changes nothing', async () => {
    await signIn('green_manager', {
      [`GET ${BASE}`]: {
        body: {
          txt_value: TXT,
          domains: [
            domain({
              last_checked_at: new Date().toISOString(),
              last_check_message: '_rally.acme.com has TXT records, but none is ' + TXT,
            }),
          ],
        },
      },
    });
    render(false);
    const panel = await region();
    const card = await within(panel).findByRole('article', { name: 'acme.com' });
    expect(within(card).getByRole('status')).toHaveTextContent(/has TXT records, but none is/);
    expect(within(panel).queryByRole('textbox')).toBeNull();
    expect(within(panel).queryByRole('button', { name: /Verify now|Remove|Add/ })).toBeNull();
  });

  it('says so when there are none and the member cannot add one', async () => {
    await signIn('yellow_sdr', { [`GET ${BASE}`]: { body: { txt_value: TXT, domains: [] } } });
    render(false);
    const panel = await region();
    expect(await within(panel).findByText('An owner or admin of this client adds them.')).toBeInTheDocument();
  });

  it('shows why the list could not be loaded and asks again', async () => {
    const user = userEvent.setup();
    let refuse = true;
    await signIn('purple_owner', {
      [`GET ${BASE}`]: () =>
        refuse
          ? { status: 403, body: { message: 'Access Denied: not a member of this client' } }
          : { body: { txt_value: TXT, domains: [domain()] } },
    });
    render(true);
    const panel = await region();
    expect(await within(panel).findByText('Could not load the verified domains')).toBeInTheDocument();
    expect(within(panel).getByText('Access Denied: not a member of this client')).toBeInTheDocument();
    refuse = false;
    await user.click(within(panel).getByRole('button', { name: 'Try again' }));
    expect(await within(panel).findByRole('article', { name: 'acme.com' })).toBeInTheDocument();
  });

  it('a failed check shows its error on the domain', async () => {
    const user = userEvent.setup();
    await signIn('purple_owner', {
      [`GET ${BASE}`]: { body: { txt_value: TXT, domains: [domain()] } },
      [`POST ${BASE}/${ID}/verify`]: { status: 404, body: { message: 'This client has no such domain.' } },
    });
    render(true);
    const card = await within(await region()).findByRole('article', { name: 'acme.com' });
    await user.click(within(card).getByRole('button', { name: 'Verify now' }));
    expect(await within(card).findByText('This client has no such domain.')).toBeInTheDocument();
  });
});
