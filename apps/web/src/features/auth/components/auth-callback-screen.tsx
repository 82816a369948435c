import { Center, Loader, Stack, Text } from '@mantine/core';
import { useEffect } from 'react';
import { Navigate, useSearchParams } from 'react-router';
import { getAuthState, loadSession, setMfaPending, useAuth } from '../../../lib/auth/store.ts';

/**
 * Whether this page load already asked for the session. Loading it shows the app's loader in place
 * of this screen, so the screen mounts again afterwards: without this, a callback reached with no
 * session (a cookie the browser refused, a bookmarked URL) asked again and again, forever.
 */
let sessionAsked = false;

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
    else if (!error && !getAuthState().loggedIn && !sessionAsked) {
      sessionAsked = true;
      void loadSession();
    }
  }, [error, mfa]);

  if (error) return <Navigate to={`/login?error=${encodeURIComponent(error)}`} replace />;
  // Asked once and still signed out: the sign-in did not finish; the login page says so.
  if (!mfa && sessionAsked && !auth.loggedIn && auth.status === 'ready')
    return <Navigate to="/login?error=invalid_state" replace />;
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
