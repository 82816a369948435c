import { notifications } from '@mantine/notifications';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderWithRouter } from '../../../testing/render.tsx';
import { ProfileScreen } from './profile-screen.tsx';
import { selfFixture } from '../../../testing/fixtures.ts';
import type { Self } from '@rally/shared/schemas/auth';

const ACME = '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c000002';
const CODES = Array.from({ length: 10 }, (_, i) => `abcde-0000${i}`);

function selfWith(patch: Partial<Self> = {}) {
  return selfFixture(
    [
      {
        client_id: ACME,
        client_name: 'Acme',
        is_default: true,
        role: 'purple_owner',
        permissions: ['client.read'],
      },
    ],
    patch,
  );
}

/** Signs in against a fake server whose self changes as the screen changes it. */
async function signIn(routes: Parameters<typeof fakeServer>[0] = {}, initial: Record<string, unknown> = {}) {
  let self = selfWith(initial);
  const server = fakeServer({
    'GET /v1/api/user/self': () => ({ body: self }),
    'PATCH /v1/api/user/self': (init) => {
      self = { ...self, ...(JSON.parse(String(init?.body)) as object) };
      return { body: self };
    },
    '/v1/rest/client': {
      body: [{ id: ACME, name: 'Acme', parent_id: null, role: 'purple_owner', is_default: true }],
    },
    [`/v1/rest/client/${ACME}/integrations`]: { body: [] },
    'POST /v1/api/user/mfa': {
      body: {
        secret: 'JBSWY3DPEHPK3PXP',
        otpauth_url: 'otpauth://totp/x',
        qr_code: 'data:image/png;base64,AA',
      },
    },
    'POST /v1/api/user/mfa/confirm': () => {
      self = { ...self, mfa_enabled: true };
      return { body: { recovery_codes: CODES } };
    },
    'DELETE /v1/api/user/mfa': () => {
      self = { ...self, mfa_enabled: false };
      return { status: 204 };
    },
    ...routes,
  });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  return server;
}

const bodyOf = (server: ReturnType<typeof fakeServer>, call: string) => {
  const found = server.calls.find((c) => `${c.init?.method ?? 'GET'} ${c.url}` === call);
  return found ? (JSON.parse(String(found.init?.body)) as unknown) : undefined;
};

async function typeCode(user: ReturnType<typeof userEvent.setup>, code: string) {
  const digits = within(screen.getByRole('group', { name: 'Authentication code' })).getAllByRole('textbox');
  await user.click(digits[0]!);
  await user.keyboard(code);
}

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

describe('ProfileScreen', () => {
  it('lists the linked Google and Microsoft accounts, says a link worked, and unlinks one', async () => {
    let identities = [
      { provider: 'microsoft', email: 'dana@partner.test', linked_at: '2026-01-01T00:00:00Z' },
    ];
    const server = await signIn({
      'GET /v1/api/auth/identities': () => ({ body: { identities } }),
      'DELETE /v1/api/auth/microsoft/link': () => {
        identities = [];
        return { status: 204 };
      },
    });
    const user = userEvent.setup();
    renderWithRouter(<ProfileScreen />, '/settings/profile?linked=microsoft');
    const card = screen.getByRole('region', { name: 'Google and Microsoft sign-in' });
    expect(within(card).getByText('Microsoft account linked.')).toBeInTheDocument();
    expect(await within(card).findByText('Microsoft: dana@partner.test')).toBeInTheDocument();
    expect(within(card).getByText('Google: not linked')).toBeInTheDocument();
    await user.click(within(card).getByRole('button', { name: 'Unlink Microsoft' }));
    expect(await within(card).findByText('Microsoft: not linked')).toBeInTheDocument();
    expect(
      server.calls.some((c) => c.init?.method === 'DELETE' && c.url === '/v1/api/auth/microsoft/link'),
    ).toBe(true);
  });

  it('says why linking failed', async () => {
    await signIn({ 'GET /v1/api/auth/identities': { body: { identities: [] } } });
    renderWithRouter(<ProfileScreen />, '/settings/profile?link_error=identity_taken');
    const card = screen.getByRole('region', { name: 'Google and Microsoft sign-in' });
    expect(within(card).getByText('That account already signs in another Rally user.')).toBeInTheDocument();
  });

  it('saves a new name and refreshes the signed-in user', async () => {
    const server = await signIn();
    const user = userEvent.setup();
    renderWithRouter(<ProfileScreen />, `/settings/profile?client_id=${ACME}`);

    const profile = screen.getByRole('region', { name: 'Profile' });
    expect(within(profile).getByLabelText('Email')).toHaveValue('dana@example.com');
    const last = within(profile).getByLabelText('Last name');
    await user.clear(last);
    await user.type(last, 'Smith ');
    await user.click(within(profile).getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('Your profile has been saved.')).toBeInTheDocument();
    expect(bodyOf(server, 'PATCH /v1/api/user/self')).toEqual({ first_name: 'Dana', last_name: 'Smith' });
    expect(server.calls.filter((c) => c.url === '/v1/api/user/self')).toHaveLength(3);
  });

  it('checks a name is given before calling the server', async () => {
    const server = await signIn();
    const user = userEvent.setup();
    renderWithRouter(<ProfileScreen />);
    const profile = screen.getByRole('region', { name: 'Profile' });
    await user.clear(within(profile).getByLabelText('First name'));
    await user.click(within(profile).getByRole('button', { name: 'Save' }));
    expect(await within(profile).findByText('Enter your first name')).toBeInTheDocument();
    expect(server.calls.some((c) => c.init?.method === 'PATCH')).toBe(false);
  });

  it("shows the server's 422 on current_password under that field", async () => {
    await signIn({
      'PATCH /v1/api/user/self': {
        status: 422,
        body: {
          message: 'body.current_password: is not your current password',
          errors: [{ field: 'body.current_password', message: 'is not your current password' }],
        },
      },
    });
    const user = userEvent.setup();
    renderWithRouter(<ProfileScreen />);
    const card = screen.getByRole('region', { name: 'Password' });
    await user.type(within(card).getByLabelText('Current password'), 'wrong-password');
    await user.type(within(card).getByLabelText('New password'), 'a-new-password-1');
    await user.type(within(card).getByLabelText('Repeat the new password'), 'a-new-password-2');
    await user.click(within(card).getByRole('button', { name: 'Change password' }));
    expect(await within(card).findByText('The passwords do not match')).toBeInTheDocument();

    const repeat = within(card).getByLabelText('Repeat the new password');
    await user.clear(repeat);
    await user.type(repeat, 'a-new-password-1');
    await user.click(within(card).getByRole('button', { name: 'Change password' }));
    expect(await within(card).findByText('This is not your current password')).toBeInTheDocument();
    expect(within(card).getByLabelText('Current password')).toHaveAccessibleDescription(
      'This is not your current password',
    );
  });

  it('changes the password and clears the form', async () => {
    const server = await signIn();
    const user = userEvent.setup();
    renderWithRouter(<ProfileScreen />);
    const card = screen.getByRole('region', { name: 'Password' });
    await user.type(within(card).getByLabelText('Current password'), 'old-password-1');
    await user.type(within(card).getByLabelText('New password'), 'a-new-password-1');
    await user.type(within(card).getByLabelText('Repeat the new password'), 'a-new-password-1');
    await user.click(within(card).getByRole('button', { name: 'Change password' }));
    expect(await screen.findByText(/Your password has been changed/)).toBeInTheDocument();
    expect(bodyOf(server, 'PATCH /v1/api/user/self')).toEqual({
      current_password: 'old-password-1',
      password: 'a-new-password-1',
    });
    expect(within(card).getByLabelText('Current password')).toHaveValue('');
  });

  it('turns two-step verification on: QR code and key, a code, then the recovery codes', async () => {
    const server = await signIn();
    const user = userEvent.setup();
    renderWithRouter(<ProfileScreen />);
    const card = screen.getByRole('region', { name: 'Two-step verification' });
    expect(within(card).getByText('Off')).toBeInTheDocument();
    await user.click(within(card).getByRole('button', { name: 'Turn on' }));

    expect(await within(card).findByAltText('QR code for your authenticator app')).toHaveAttribute(
      'src',
      'data:image/png;base64,AA',
    );
    expect(within(card).getByText('JBSWY3DPEHPK3PXP')).toBeInTheDocument();
    const confirm = within(card).getByRole('button', { name: 'Confirm' });
    expect(confirm).toBeDisabled();
    await typeCode(user, '123456');
    await user.click(confirm);

    const list = await within(card).findByRole('list', { name: 'Recovery codes' });
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(CODES);
    expect(bodyOf(server, 'POST /v1/api/user/mfa/confirm')).toEqual({ code: '123456' });
    expect(within(card).getByRole('button', { name: 'Copy codes' })).toBeInTheDocument();

    await user.click(within(card).getByRole('button', { name: 'I have saved them' }));
    expect(await within(card).findByRole('button', { name: 'Turn off' })).toBeInTheDocument();
    expect(within(card).getByText('On')).toBeInTheDocument();
  });

  it('says so when the first code is wrong', async () => {
    await signIn({
      'POST /v1/api/user/mfa/confirm': {
        status: 422,
        body: {
          message: 'body.code: is not the current code',
          errors: [{ field: 'body.code', message: 'is not the current code' }],
        },
      },
    });
    const user = userEvent.setup();
    renderWithRouter(<ProfileScreen />);
    const card = screen.getByRole('region', { name: 'Two-step verification' });
    await user.click(within(card).getByRole('button', { name: 'Turn on' }));
    await within(card).findByAltText('QR code for your authenticator app');
    await typeCode(user, '000000');
    await user.click(within(card).getByRole('button', { name: 'Confirm' }));
    expect(await within(card).findByRole('alert')).toHaveTextContent('That code is not correct');
  });

  it('turns two-step verification off with a current code', async () => {
    const server = await signIn({}, { mfa_enabled: true });
    const user = userEvent.setup();
    renderWithRouter(<ProfileScreen />);
    const card = screen.getByRole('region', { name: 'Two-step verification' });
    await user.click(within(card).getByRole('button', { name: 'Turn off' }));
    await typeCode(user, '654321');
    await user.click(within(card).getByRole('button', { name: 'Turn off two-step verification' }));
    expect(await within(card).findByRole('button', { name: 'Turn on' })).toBeInTheDocument();
    expect(bodyOf(server, 'DELETE /v1/api/user/mfa')).toEqual({ code: '654321' });
    await waitFor(() => expect(screen.getByText('Two-step verification is off.')).toBeInTheDocument());
  });

  it('offers to set a password when the account has none (Google or Microsoft sign-in)', async () => {
    await signIn({}, { has_password: false });
    renderWithRouter(<ProfileScreen />);
    const card = screen.getByRole('region', { name: 'Password' });
    expect(within(card).queryByLabelText('Current password')).not.toBeInTheDocument();
    expect(within(card).getByRole('button', { name: 'Set password' })).toBeInTheDocument();
  });
});
