import { Center, Loader, Stack, Text } from '@mantine/core';
import { useEffect } from 'react';
import { Navigate, useSearchParams } from 'react-router';
import { getAuthState, loadSession, setMfaPending, useAuth } from '../../../lib/auth/store.ts';

/** /auth/callback (empty layout): where Google, Microsoft and SSO sign-ins return. */
export function AuthCallbackScreen() {
  const [params] = useSearchParams();
  const error = params.get('error');
  // Google or Microsoft vouched for the address of a user with TOTP on: the code step comes next.
  const mfa = params.get('mfa') === '1';
  const auth = useAuth();
  useEffect(() => {
    if (mfa) setMfaPending(true);
    // Start-up already loads the session when the sign-in cookie is present.
    else if (!error && !getAuthState().loggedIn) void loadSession();
  }, [error, mfa]);

  if (error) return <Navigate to={`/login?error=${encodeURIComponent(error)}`} replace />;
  if (mfa && auth.mfaPending) return <Navigate to="/login" replace />;
  if (auth.loggedIn && auth.status === 'ready') return <Navigate to="/login" replace />;
  return (
    <Center mih="100vh">
      <Stack align="center" gap="sm" role="status">
        <Loader />
        <Text c="dimmed">Signing you in…</Text>
      </Stack>
    </Center>
  );
}
