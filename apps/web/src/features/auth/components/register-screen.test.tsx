import { notifications } from '@mantine/notifications';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { getAuthState, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { acmeSession } from '../../../testing/fixtures.ts';
import { RegisterScreen } from './register-screen.tsx';

const ACCEPTED = 'Check your e-mail: we sent a link to finish creating your account to that address.';
const LINK_INVALID =
  'This sign-up link is invalid, has expired or was already used. Sign in, or sign up again.';

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

const show = (path: string) => renderRoutes([{ path: '/register', element: <RegisterScreen /> }], path);
const bodyOf = (init?: RequestInit) => JSON.parse(String(init?.body)) as Record<string, string>;

describe('RegisterScreen', () => {
  it('sends the sign-up and ends on "Check your e-mail" naming the address, whatever the address', async () => {
    const sent: Record<string, string>[] = [];
    const server = fakeServer({
      'POST /v1/api/register': (init) => {
        sent.push(bodyOf(init));
        return { status: 202, body: { message: ACCEPTED } };
      },
    });
    vi.stubGlobal('fetch', server.fetchFn);
    show('/register');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('First name'), 'Nora');
    await user.type(screen.getByLabelText('Last name'), 'New');
    await user.type(screen.getByLabelText('Work email'), 'nora@corp.example');
    await user.type(screen.getByLabelText('Company'), 'Nora Corp');
    await user.type(screen.getByLabelText('Password'), 'a long enough password');
    await user.click(screen.getByRole('button', { name: 'Sign Up' }));

    expect(await screen.findByRole('heading', { name: 'Check your e-mail' })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('We sent a message to nora@corp.example');
    expect(sent).toEqual([
      {
        first_name: 'Nora',
        last_name: 'New',
        email: 'nora@corp.example',
        company_name: 'Nora Corp',
        password: 'a long enough password',
      },
    ]);
    // No session is looked for: nothing signed in.
    expect(server.calls.some((c) => c.url === '/v1/api/user/self')).toBe(false);
    expect(screen.getByRole('link', { name: 'Back to sign in' })).toHaveAttribute('href', '/login');
    await user.click(screen.getByRole('button', { name: 'Use a different address' }));
    expect(await screen.findByRole('heading', { name: 'Create your account' })).toBeInTheDocument();
  });

  it('the e-mailed link asks for the password: a wrong one shows on the field, the right one signs in', async () => {
    const sent: Record<string, string>[] = [];
    const session = acmeSession('purple_owner');
    const server = fakeServer({
      ...session,
      'POST /v1/api/register/confirm': (init) => {
        const body = bodyOf(init);
        sent.push(body);
        if (body.password !== 'a long enough password')
          return {
            status: 422,
            body: {
              message: 'Invalid input',
              errors: [{ field: 'body.password', message: 'is not the password you chose when signing up' }],
            },
          };
        return { ...session['GET /v1/api/user/self'], status: 201 };
      },
    });
    vi.stubGlobal('fetch', server.fetchFn);
    show('/register?confirm=v1.sealed.link.token');
    const user = userEvent.setup();
    expect(await screen.findByRole('heading', { name: 'Finish creating your account' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Create my account' }));
    expect(await screen.findByText('Enter the password you chose')).toBeInTheDocument();
    expect(sent).toHaveLength(0);

    await user.type(screen.getByLabelText('Password'), 'not the one');
    await user.click(screen.getByRole('button', { name: 'Create my account' }));
    expect(await screen.findByText('This is not the password you chose when signing up')).toBeInTheDocument();
    await user.clear(screen.getByLabelText('Password'));
    await user.type(screen.getByLabelText('Password'), 'a long enough password');
    await user.click(screen.getByRole('button', { name: 'Create my account' }));
    await waitFor(() => expect(getAuthState().user?.clients[0]?.client_name).toBe('Acme'));
    expect(sent.at(-1)).toEqual({ token: 'v1.sealed.link.token', password: 'a long enough password' });
  });

  it('a used or expired link says so and offers to sign in or sign up again', async () => {
    const server = fakeServer({
      'POST /v1/api/register/confirm': { status: 400, body: { message: LINK_INVALID } },
    });
    vi.stubGlobal('fetch', server.fetchFn);
    show('/register?confirm=v1.used.link.token');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Password'), 'a long enough password');
    await user.click(screen.getByRole('button', { name: 'Create my account' }));
    expect(await screen.findByText(LINK_INVALID)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Create my account' })).toBeDisabled();
    expect(screen.getByRole('link', { name: 'Sign up again' })).toHaveAttribute('href', '/register');
    expect(screen.getByRole('link', { name: 'Sign In' })).toHaveAttribute('href', '/login');
  });
});
