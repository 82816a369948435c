import { Anchor, Box, Button, Group, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconBrandGoogleFilled, IconBrandWindows, IconKey, IconMail } from '@tabler/icons-react';
import { Suspense, lazy, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { loadSession, useAuth } from '../../../lib/auth/store.ts';
import { requestMagicLink, signIn, ssoStartUrl } from '../api/auth-api.ts';
import { FormError } from '../../../components/form-error.tsx';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { useLightAction, useLightForm } from '../../../lib/use-light-form.ts';
import { loadQueryModule } from '../../../lib/query-loader.ts';
import { useRuntimeConfig } from '../../../lib/runtime-config.ts';

// The code step sends its code through the query cache, which /login itself does not load.
const MfaStep = lazy(() => Promise.all([import('./mfa-step.tsx'), loadQueryModule()]).then(([step]) => step));

// Plain checks rather than a schema library: this screen is the first download (issue 19); the
// server checks the address again and names the field if it disagrees.
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
const validEmail = (value: string) => (EMAIL.test(value.trim()) ? null : 'Enter a valid e-mail address');
const credentials = {
  email: (value: string) => (value.trim() ? validEmail(value) : 'Enter your e-mail address'),
  password: (value: string) => (value ? null : 'Enter your password'),
};
const emailOnly = { email: validEmail };

type Mode = 'password' | 'mfa' | 'link' | 'sso';

const CALLBACK_ERRORS: Record<string, string> = {
  no_account: 'There is no account for that address. Ask your team owner for an invitation, or sign up.',
  invalid_state: 'Your sign-in took too long or was interrupted. Please try again.',
  provider_error: 'The identity provider could not sign you in. Please try again.',
  domain_unverified:
    'Single sign-on of your organisation does not cover your e-mail address’s domain yet. Sign in with your password.',
  identity_mismatch:
    'That sign-in is a different account than the one linked to you. Sign in with your password or an e-mail link.',
  sso_unavailable:
    'Single sign-on is not available for that address. Sign in with your password or an e-mail link.',
  assertion_invalid:
    'Your organisation’s identity provider sent a sign-in this app cannot accept. Please try again.',
  assertion_replayed: 'That sign-in was already used. Please sign in again.',
  idp_initiated_off:
    'Your organisation signs in from this app only: start single sign-on here rather than from the identity provider.',
  assertion_unencrypted:
    'Your organisation requires encrypted sign-ins, and its identity provider sent one unencrypted. Ask your administrator to turn on assertion encryption with Rally’s certificate.',
  email_unverified:
    'The provider did not confirm that e-mail address. Sign in with your password or an e-mail link, then link the account under Settings › Profile.',
};

/** SPEC.md §2 "/login": every sign-in method, then self, clients and integrations. */
export function LoginScreen() {
  const [params] = useSearchParams();
  // A sign-in link or a Google/Microsoft sign-in of a user with TOTP on lands on the code step.
  const { mfaPending } = useAuth();
  const [mode, setMode] = useState<Mode>(mfaPending ? 'mfa' : 'password');
  const [sentTo, setSentTo] = useState<string | null>(null);
  const callbackError = params.get('error');
  // Issue 42 item 3: only the providers this installation has set up (none while it answers).
  const providers = useRuntimeConfig()?.sign_in;

  const form = useLightForm({ email: '', password: '' }, credentials);
  const linkForm = useLightForm({ email: '' }, emailOnly);
  const ssoForm = useLightForm({ email: '' }, emailOnly);

  // Errors show in the form (no toast), as FormError below.
  const login = useLightAction(signIn, async (reply) => {
    if (reply.mfa) setMode('mfa');
    else await loadSession();
  });
  const link = useLightAction(requestMagicLink, (_r, email) => setSentTo(email));

  if (mode === 'mfa') {
    return (
      <Suspense fallback={<ScreenLoader />}>
        <MfaStep onBack={() => setMode('password')} />
      </Suspense>
    );
  }

  return (
    <Stack gap="md">
      <div>
        <Title order={1} fz={24}>
          Sign in
        </Title>
        <Text c="dimmed" size="sm">
          Welcome back. Sign in to your workspace.
        </Text>
      </div>
      {callbackError && (
        <FormError error={new Error(CALLBACK_ERRORS[callbackError] ?? 'Sign-in failed. Please try again.')} />
      )}

      {(providers?.google || providers?.microsoft) && (
        <>
          <Stack gap="xs">
            {providers.google && (
              <Button
                component="a"
                href="/v1/api/auth/google"
                variant="default"
                leftSection={<IconBrandGoogleFilled size={16} />}
                fullWidth
              >
                Continue with Google
              </Button>
            )}
            {providers.microsoft && (
              <Button
                component="a"
                href="/v1/api/auth/microsoft"
                variant="default"
                leftSection={<IconBrandWindows size={16} />}
                fullWidth
              >
                Continue with Microsoft
              </Button>
            )}
          </Stack>
          {/* Drawn from parts already loaded: Divider is one more file on the first download (issue 19). */}
          <Group gap="xs" wrap="nowrap" role="separator" aria-label="or">
            <Box flex={1} h={1} bg="gray.3" />
            <Text size="xs" c="dimmed" aria-hidden>
              or
            </Text>
            <Box flex={1} h={1} bg="gray.3" />
          </Group>
        </>
      )}

      {mode === 'password' && (
        <form
          onSubmit={form.onSubmit((v) => login.mutate({ email: v.email.trim(), password: v.password }))}
          noValidate
        >
          <Stack gap="sm">
            <TextInput label="Email" type="email" autoComplete="username" {...form.field('email')} />
            <PasswordInput label="Password" autoComplete="current-password" {...form.field('password')} />
            <Group justify="flex-end" mt={-6}>
              <Anchor component={Link} to="/reset-password" size="xs">
                Forgot password?
              </Anchor>
            </Group>
            <FormError error={login.error} />
            <Button type="submit" fullWidth loading={login.isPending}>
              Sign in
            </Button>
          </Stack>
        </form>
      )}

      {mode === 'link' &&
        (sentTo ? (
          <Text size="sm" role="status">
            Check your inbox: if an account exists for <b>{sentTo}</b>, a sign-in link is on its way. It works
            once, for 15 minutes.
          </Text>
        ) : (
          <form onSubmit={linkForm.onSubmit((v) => link.mutate(v.email.trim()))} noValidate>
            <Stack gap="sm">
              <TextInput label="Email" type="email" autoComplete="username" {...linkForm.field('email')} />
              <FormError error={link.error} />
              <Button type="submit" fullWidth loading={link.isPending}>
                Email me a sign-in link
              </Button>
            </Stack>
          </form>
        ))}

      {mode === 'sso' && (
        <form
          onSubmit={ssoForm.onSubmit((v) => window.location.assign(ssoStartUrl(v.email.trim())))}
          noValidate
        >
          <Stack gap="sm">
            <TextInput label="Work email" type="email" autoComplete="username" {...ssoForm.field('email')} />
            <Button type="submit" fullWidth>
              Continue with SSO
            </Button>
          </Stack>
        </form>
      )}

      <Group justify="center" gap="lg">
        {mode !== 'password' && (
          <Anchor component="button" type="button" size="sm" onClick={() => setMode('password')}>
            Sign in with a password
          </Anchor>
        )}
        {mode !== 'link' && (
          <Anchor component="button" type="button" size="sm" onClick={() => setMode('link')}>
            <Group gap={4} wrap="nowrap">
              <IconMail size={14} /> Email me a sign-in link
            </Group>
          </Anchor>
        )}
        {mode !== 'sso' && (
          <Anchor component="button" type="button" size="sm" onClick={() => setMode('sso')}>
            <Group gap={4} wrap="nowrap">
              <IconKey size={14} /> Single sign-on
            </Group>
          </Anchor>
        )}
      </Group>

      <Text size="sm" ta="center" c="dimmed">
        New to the product?{' '}
        <Anchor component={Link} to="/register" fw={600}>
          Sign Up
        </Anchor>
      </Text>
    </Stack>
  );
}
