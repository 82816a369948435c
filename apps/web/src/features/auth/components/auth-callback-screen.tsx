import { Center, Loader, Stack, Text } from '@mantine/core';
import { useEffect } from 'react';
import { Navigate, useSearchParams } from 'react-router';
import { getAuthState, loadSession, useAuth } from '../../../lib/auth/store.ts';

/** /auth/callback (empty layout): where Google, Microsoft and SSO sign-ins return. */
export function AuthCallbackScreen() {
  const [params] = useSearchParams();
  const error = params.get('error');
  const auth = useAuth();
  useEffect(() => {
    // Start-up already loads the session when the sign-in cookie is present.
    if (!error && !getAuthState().loggedIn) void loadSession();
  }, [error]);

  if (error) return <Navigate to={`/login?error=${encodeURIComponent(error)}`} replace />;
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
