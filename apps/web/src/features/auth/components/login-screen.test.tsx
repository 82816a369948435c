import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { EVERYTHING_SET_UP } from '../../../testing/fixtures.ts';
import { LoginScreen } from './login-screen.tsx';

afterEach(() => {
  resetAuth();
  vi.unstubAllGlobals();
});

/** (The configuration is fetched once per page load: one installation in this file.) */
describe('/login offers only the sign-in providers set up here (issue 42 item 3)', () => {
  it('Google set up, Microsoft not: only “Continue with Google”', async () => {
    vi.stubGlobal(
      'fetch',
      fakeServer({
        '/v1/api/user/self': { status: 401, body: {} },
        '/v1/api/config': { body: { ...EVERYTHING_SET_UP, sign_in: { google: true, microsoft: false } } },
      }).fetchFn,
    );
    await loadSession();
    renderRoutes([{ path: '/login', element: <LoginScreen /> }], '/login');
    const google = await screen.findByRole('link', { name: 'Continue with Google' });
    expect(google).toHaveAttribute('href', '/v1/api/auth/google');
    expect(screen.queryByRole('link', { name: 'Continue with Microsoft' })).toBeNull();
    expect(screen.getByRole('separator', { name: 'or' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeInTheDocument();
  });
});
