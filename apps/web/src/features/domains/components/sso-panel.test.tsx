import { notifications } from '@mantine/notifications';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ClientDomain } from '@rally/shared/schemas/domains';
import type { SsoSettings } from '@rally/shared/schemas/sso';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import type { Role, Routes } from '../../../testing/fixtures.ts';
import { SsoPanel } from './sso-panel.tsx';
import type { SsoAccess } from './sso-panel.tsx';

/** Issue 37.1: single sign-on is changed by owners only, read by admins, hidden from the rest. */
const ACME = CLIENT_IDS.acme;
const SSO = `/v1/rest/client/${ACME}/sso`;
const DOMAINS = `/v1/rest/client/${ACME}/domains`;
const TXT = 'rally-verification=4c0b1a1e9f2d4e7c8a6b5d3f2e1c0b9a';

const domain = (name: string, verified: boolean): ClientDomain => ({
  id: crypto.randomUUID(),
  domain: name,
  verified,
  verified_at: verified ? '2026-12-01T10:00:00.000Z' : null,
  last_checked_at: '2026-12-01T10:00:00.000Z',
  last_check_message: null,
  dns_record: { type: 'TXT', name: `_rally.${name}`, value: TXT },
  created_at: '2026-12-01T10:00:00.000Z',
});
const settings: SsoSettings = {
  issuer: 'https://login.acme.com',
  client_id: 'rally',
  enabled: true,
  has_secret: true,
  domains: ['acme.com'],
};

async function signIn(role: Role, routes: Routes) {
  const server = fakeServer({ ...acmeSession(role), ...routes });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  return server;
}

const render = (access: SsoAccess) =>
  renderRoutes(
    [{ path: '/settings/domain', element: <SsoPanel clientId={ACME} access={access} /> }],
    `/settings/domain?client_id=${ACME}`,
  );

const region = () => screen.findByRole('region', { name: 'Single sign-on' });
const bodyOf = (server: Awaited<ReturnType<typeof signIn>>) =>
  JSON.parse(String(server.calls.find((c) => c.init?.method === 'PUT')?.init?.body)) as unknown;

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

describe('Single sign-on', () => {
  it('an owner sets it up: warned while no domain is verified, told members are e-mailed', async () => {
    const user = userEvent.setup();
    const server = await signIn('purple_owner', {
      [`GET ${SSO}`]: { status: 404, body: { message: 'Single sign-on is not set up.' } },
      [`GET ${DOMAINS}`]: { body: { txt_value: TXT, domains: [domain('acme.com', false)] } },
      [`PUT ${SSO}`]: { body: { ...settings, domains: [] } },
    });
    render('owner');
    const panel = await region();
    expect(await within(panel).findByText('No verified domain yet')).toBeInTheDocument();
    expect(within(panel).getByText('No domain: verify one above.')).toBeInTheDocument();
    expect(within(panel).getByText(/every member of this client is e-mailed/)).toBeInTheDocument();
    expect(within(panel).getByText(`${window.location.origin}/v1/api/auth/sso/callback`)).toBeInTheDocument();

    await user.type(within(panel).getByRole('textbox', { name: /Issuer URL/ }), 'ftp://nope');
    await user.click(within(panel).getByRole('button', { name: 'Save single sign-on' }));
    expect(await within(panel).findByText(/This must be a URL/)).toBeInTheDocument();
    expect(within(panel).getByText('This is required')).toBeInTheDocument();

    await user.clear(within(panel).getByRole('textbox', { name: /Issuer URL/ }));
    await user.type(within(panel).getByRole('textbox', { name: /Issuer URL/ }), 'https://login.acme.com');
    await user.type(within(panel).getByRole('textbox', { name: 'Client ID' }), 'rally');
    await user.type(within(panel).getByLabelText(/Client secret/), 's3cret');
    await user.click(within(panel).getByRole('switch', { name: /Turn on single sign-on/ }));
    await user.click(within(panel).getByRole('button', { name: 'Save single sign-on' }));
    expect(await screen.findByText('Single sign-on is on.')).toBeInTheDocument();
    expect(bodyOf(server)).toEqual({
      issuer: 'https://login.acme.com',
      client_id: 'rally',
      client_secret: 's3cret',
      enabled: true,
    });
  });

  it('an owner changes it without retyping the stored secret; the domains it speaks for are listed', async () => {
    const user = userEvent.setup();
    const server = await signIn('purple_owner', {
      [`GET ${SSO}`]: { body: settings },
      [`GET ${DOMAINS}`]: {
        body: { txt_value: TXT, domains: [domain('acme.com', true), domain('acme.io', false)] },
      },
      [`PUT ${SSO}`]: { body: { ...settings, enabled: false } },
    });
    render('owner');
    const panel = await region();
    const secret = await within(panel).findByLabelText(/Client secret/);
    expect(secret).toHaveValue('');
    expect(secret).toHaveAttribute('placeholder', 'Stored: leave empty to keep it');
    expect(within(panel).getByText('acme.com')).toBeInTheDocument();
    expect(within(panel).queryByText('acme.io')).toBeNull();
    expect(within(panel).queryByText('No verified domain yet')).toBeNull();
    await user.click(within(panel).getByRole('switch', { name: /Turn on single sign-on/ }));
    await user.click(within(panel).getByRole('button', { name: 'Save single sign-on' }));
    await waitFor(() =>
      expect(bodyOf(server)).toEqual({
        issuer: 'https://login.acme.com',
        client_id: 'rally',
        enabled: false,
      }),
    );
  });

  it("shows the server's refusal of the issuer on its field", async () => {
    const user = userEvent.setup();
    await signIn('purple_owner', {
      [`GET ${SSO}`]: { body: settings },
      [`GET ${DOMAINS}`]: { body: { txt_value: TXT, domains: [domain('acme.com', true)] } },
      [`PUT ${SSO}`]: {
        status: 422,
        body: {
          message: 'Validation failed',
          errors: [
            {
              field: 'body.issuer',
              message:
                'no OpenID Connect provider answers at this address (…/.well-known/openid-configuration)',
            },
          ],
        },
      },
    });
    render('owner');
    const panel = await region();
    await user.click(await within(panel).findByRole('button', { name: 'Save single sign-on' }));
    expect(await within(panel).findByText(/No OpenID Connect provider answers/)).toBeInTheDocument();
  });

  it('an admin reads it and cannot change it', async () => {
    await signIn('blue_admin', {
      [`GET ${SSO}`]: { body: settings },
      [`GET ${DOMAINS}`]: { body: { txt_value: TXT, domains: [domain('acme.com', true)] } },
    });
    render('read');
    const panel = await region();
    expect(await within(panel).findByText('https://login.acme.com')).toBeInTheDocument();
    expect(within(panel).getByText('On')).toBeInTheDocument();
    expect(within(panel).getByText('rally')).toBeInTheDocument();
    expect(within(panel).getByText('acme.com')).toBeInTheDocument();
    expect(within(panel).getByRole('note')).toHaveTextContent(/Only an owner of this client can change/);
    expect(within(panel).queryByRole('textbox')).toBeNull();
    expect(within(panel).queryByRole('button')).toBeNull();
  });

  it('an admin sees that it is not set up', async () => {
    await signIn('blue_admin', {
      [`GET ${SSO}`]: { status: 404, body: { message: 'Single sign-on is not set up.' } },
      [`GET ${DOMAINS}`]: { body: { txt_value: TXT, domains: [] } },
    });
    render('read');
    const panel = await region();
    expect(await within(panel).findByText('Single sign-on is not set up.')).toBeInTheDocument();
    expect(within(panel).getByText('No verified domain yet')).toBeInTheDocument();
  });

  it('a member without client.write is told who sees it, and nothing is asked of the server', async () => {
    const server = await signIn('green_manager', {
      [`GET ${DOMAINS}`]: { body: { txt_value: TXT, domains: [] } },
    });
    render('none');
    const panel = await region();
    expect(within(panel).getByRole('note')).toHaveTextContent(/Only owners and admins/);
    expect(server.calls.some((c) => c.url === SSO)).toBe(false);
  });

  it('shows why the settings could not be loaded', async () => {
    await signIn('purple_owner', {
      [`GET ${SSO}`]: { status: 403, body: { message: 'Access Denied' } },
      [`GET ${DOMAINS}`]: { body: { txt_value: TXT, domains: [] } },
    });
    render('owner');
    const panel = await region();
    expect(await within(panel).findByText('Could not load the single sign-on settings')).toBeInTheDocument();
    expect(within(panel).getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });
});
