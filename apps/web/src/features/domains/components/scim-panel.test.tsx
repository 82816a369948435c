import { notifications } from '@mantine/notifications';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ScimToken } from '@rally/shared/schemas/scim';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import type { Role, Routes } from '../../../testing/fixtures.ts';
import { ScimPanel } from './scim-panel.tsx';
import type { SsoAccess } from './sso-panel.tsx';

/** Issue 44: SCIM provisioning tokens, made and revoked by owners, read by admins, hidden from the rest. */
const ACME = CLIENT_IDS.acme;
const TOKENS = `/v1/rest/client/${ACME}/scim-tokens`;
const BASE_URL = 'https://rally.example.net/scim/v2';
const DOMAINS = `/v1/rest/client/${ACME}/domains`;
const TXT = 'rally-verification=4c0b1a1e9f2d4e7c8a6b5d3f2e1c0b9a';
const domains = (verified: boolean) => ({
  body: {
    txt_value: TXT,
    domains: [
      {
        id: crypto.randomUUID(),
        domain: 'acme.com',
        verified,
        verified_at: verified ? '2026-12-01T10:00:00.000Z' : null,
        last_checked_at: '2026-12-01T10:00:00.000Z',
        last_check_message: null,
        dns_record: { type: 'TXT', name: '_rally.acme.com', value: TXT },
        created_at: '2026-12-01T10:00:00.000Z',
      },
    ],
  },
});
const SECRET = 'rally_scim_Q2hhbmdlIG1lIGlmIHlvdSBjYW4gcmVhZCB0aGlzIQ0123456';

const token = (over: Partial<ScimToken> = {}): ScimToken => ({
  id: crypto.randomUUID(),
  name: 'Okta',
  hint: 'rally_scim_Q2hh…',
  default_role: 'yellow_sdr',
  created_at: '2026-12-01T10:00:00.000Z',
  created_by: 'Olive Owner',
  last_used_at: null,
  revoked_at: null,
  ...over,
});

async function signIn(role: Role, routes: Routes) {
  const server = fakeServer({ ...acmeSession(role), [`GET ${DOMAINS}`]: domains(true), ...routes });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  return server;
}

const render = (access: SsoAccess) =>
  renderRoutes(
    [{ path: '/settings/domain', element: <ScimPanel clientId={ACME} access={access} /> }],
    `/settings/domain?client_id=${ACME}`,
  );
const region = () => screen.findByRole('region', { name: 'User provisioning (SCIM)' });

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

describe('User provisioning (SCIM)', () => {
  it('an owner with no token yet makes one, sees it once, and it joins the list', async () => {
    const user = userEvent.setup();
    const made = token({ name: 'Entra', default_role: 'green_manager' });
    const server = await signIn('purple_owner', {
      [`GET ${TOKENS}`]: { body: { base_url: BASE_URL, tokens: [] } },
      [`POST ${TOKENS}`]: { status: 201, body: { token: made, secret: SECRET, base_url: BASE_URL } },
      [`GET ${DOMAINS}`]: domains(false),
    });
    render('owner');
    const panel = await region();
    expect(await within(panel).findByText('No provisioning tokens yet')).toBeInTheDocument();
    expect(await within(panel).findByText('No verified domain yet')).toBeInTheDocument();
    expect(within(panel).getByText(BASE_URL)).toBeInTheDocument();

    await user.click(within(panel).getByRole('button', { name: 'Make a provisioning token' }));
    expect(await within(panel).findByText('This is required')).toBeInTheDocument();

    await user.type(within(panel).getByRole('textbox', { name: 'Token name' }), 'Entra');
    await user.selectOptions(within(panel).getByRole('combobox', { name: /New members become/ }), 'Manager');
    await user.click(within(panel).getByRole('button', { name: 'Make a provisioning token' }));
    expect(await within(panel).findByText('Copy the token now')).toBeInTheDocument();
    expect(within(panel).getByText(SECRET)).toBeInTheDocument();
    const post = server.calls.find((c) => c.init?.method === 'POST');
    expect(JSON.parse(String(post?.init?.body))).toEqual({ name: 'Entra', default_role: 'green_manager' });
    const table = within(panel).getByRole('table', { name: 'Provisioning tokens' });
    expect(within(table).getByText('Entra')).toBeInTheDocument();
    expect(within(table).getByText('Manager')).toBeInTheDocument();

    await user.click(within(panel).getByRole('button', { name: 'I have copied it' }));
    expect(within(panel).queryByText(SECRET)).toBeNull();
  });

  it('an owner revokes a token after confirming', async () => {
    const user = userEvent.setup();
    const live = token({ last_used_at: new Date().toISOString() });
    let revoked = false;
    await signIn('purple_owner', {
      [`GET ${TOKENS}`]: () => ({
        body: {
          base_url: BASE_URL,
          tokens: [revoked ? { ...live, revoked_at: new Date().toISOString() } : live],
        },
      }),
      [`DELETE ${TOKENS}/${live.id}`]: () => {
        revoked = true;
        return { status: 204 };
      },
    });
    render('owner');
    const panel = await region();
    expect(await within(panel).findByText('Active')).toBeInTheDocument();
    expect(within(panel).getByText('Last used just now')).toBeInTheDocument();
    await user.click(within(panel).getByRole('button', { name: 'Revoke' }));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke “Okta”?' });
    await user.click(within(dialog).getByRole('button', { name: 'Revoke' }));
    expect(await screen.findByText('“Okta” was revoked.')).toBeInTheDocument();
    await waitFor(() => expect(within(panel).getByText('Revoked')).toBeInTheDocument());
    expect(within(panel).queryByRole('button', { name: 'Revoke' })).toBeNull();
  });

  it('an admin reads the tokens and is told only owners change them', async () => {
    await signIn('blue_admin', {
      [`GET ${TOKENS}`]: { body: { base_url: BASE_URL, tokens: [token()] } },
    });
    render('read');
    const panel = await region();
    expect(await within(panel).findByText('Okta')).toBeInTheDocument();
    expect(within(panel).getByText('Last used never')).toBeInTheDocument();
    expect(within(panel).queryByText('No verified domain yet')).toBeNull();
    expect(within(panel).getByRole('note')).toHaveTextContent(
      /Only an owner of this client can make or revoke/,
    );
    expect(within(panel).queryByRole('button', { name: /Revoke|Make a provisioning token/ })).toBeNull();
  });

  it('a member without client.write is told who sees it, and nothing is asked of the server', async () => {
    const server = await signIn('green_manager', {});
    render('none');
    const panel = await region();
    expect(within(panel).getByRole('note')).toHaveTextContent(/Only owners and admins/);
    expect(server.calls.some((c) => c.url === TOKENS)).toBe(false);
  });

  it('shows why the tokens could not be loaded, with a retry', async () => {
    await signIn('purple_owner', {
      [`GET ${TOKENS}`]: {
        status: 403,
        body: { message: 'Access Denied: your role does not have the client.write permission.' },
      },
    });
    render('owner');
    const panel = await region();
    expect(await within(panel).findByText('Could not load the provisioning tokens')).toBeInTheDocument();
    expect(within(panel).getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });

  it("shows the server's refusal on its field", async () => {
    const user = userEvent.setup();
    await signIn('purple_owner', {
      [`GET ${TOKENS}`]: { body: { base_url: BASE_URL, tokens: [] } },
      [`POST ${TOKENS}`]: {
        status: 422,
        body: {
          message: 'body.name: must be at most 100 characters',
          errors: [{ field: 'body.name', message: 'must be at most 100 characters' }],
        },
      },
    });
    render('owner');
    const panel = await region();
    await user.type(await within(panel).findByRole('textbox', { name: 'Token name' }), 'Okta');
    await user.click(within(panel).getByRole('button', { name: 'Make a provisioning token' }));
    expect(await within(panel).findByText(/must be at most 100 characters/)).toBeInTheDocument();
  });
});
