import {
  Anchor,
  Button,
  Divider,
  Group,
  PasswordInput,
  PinInput,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconBrandGoogleFilled, IconBrandWindows, IconKey, IconMail } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { zod4Resolver } from 'mantine-form-zod-resolver';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { z } from 'zod';
import { loadSession, setMfaPending, useAuth } from '../../../lib/auth/store.ts';
import { requestMagicLink, signIn, ssoStartUrl, verifyMfa } from '../api/auth-api.ts';
import { FormError } from '../../../components/form-error.tsx';

const credentials = z.object({
  email: z.string().trim().min(1, 'Enter your e-mail address').email('Enter a valid e-mail address'),
  password: z.string().min(1, 'Enter your password'),
});
const emailOnly = z.object({ email: z.string().trim().email('Enter a valid e-mail address') });

type Mode = 'password' | 'mfa' | 'link' | 'sso';

const CALLBACK_ERRORS: Record<string, string> = {
  no_account: 'There is no account for that address. Ask your team owner for an invitation, or sign up.',
  invalid_state: 'Your sign-in took too long or was interrupted. Please try again.',
  provider_error: 'The identity provider could not sign you in. Please try again.',
};

/** SPEC.md §2 "/login": every sign-in method, then self, clients and integrations. */
export function LoginScreen() {
  const [params] = useSearchParams();
  // A sign-in link or a Google/Microsoft sign-in of a user with TOTP on lands on the code step.
  const { mfaPending } = useAuth();
  const [mode, setMode] = useState<Mode>(mfaPending ? 'mfa' : 'password');
  const [code, setCode] = useState('');
  const [recovery, setRecovery] = useState(false);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const callbackError = params.get('error');

  const form = useForm({
    mode: 'uncontrolled',
    initialValues: { email: '', password: '' },
    validate: zod4Resolver(credentials),
  });
  const linkForm = useForm({
    mode: 'uncontrolled',
    initialValues: { email: '' },
    validate: zod4Resolver(emailOnly),
  });
  const ssoForm = useForm({
    mode: 'uncontrolled',
    initialValues: { email: '' },
    validate: zod4Resolver(emailOnly),
  });

  const login = useMutation({
    mutationFn: signIn,
    meta: { toast: false },
    onSuccess: async (reply) => {
      if (reply.mfa) setMode('mfa');
      else await loadSession();
    },
  });
  const mfa = useMutation({ mutationFn: verifyMfa, meta: { toast: false }, onSuccess: () => loadSession() });
  const link = useMutation({
    mutationFn: requestMagicLink,
    meta: { toast: false },
    onSuccess: (_r, email) => setSentTo(email),
  });

  if (mode === 'mfa') {
    return (
      <Stack gap="md">
        <div>
          <Title order={1} fz={24}>
            Two-step verification
          </Title>
          <Text c="dimmed" size="sm">
            Enter the 6-digit code from your authenticator app.
          </Text>
        </div>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            mfa.mutate(code.trim());
          }}
        >
          <Stack gap="sm">
            {recovery ? (
              <TextInput
                label="Recovery code"
                value={code}
                onChange={(e) => setCode(e.currentTarget.value)}
                autoFocus
              />
            ) : (
              <Group justify="center">
                <PinInput
                  length={6}
                  type="number"
                  oneTimeCode
                  value={code}
                  onChange={setCode}
                  ariaLabel="Authentication code"
                  autoFocus
                />
              </Group>
            )}
            <FormError error={mfa.error} />
            <Button type="submit" fullWidth loading={mfa.isPending} disabled={code.trim().length < 6}>
              Verify
            </Button>
          </Stack>
        </form>
        <Anchor
          component="button"
          type="button"
          size="sm"
          ta="center"
          onClick={() => {
            setCode('');
            setRecovery(!recovery);
          }}
        >
          {recovery ? 'Use an authenticator code' : 'Use a recovery code instead'}
        </Anchor>
        <Anchor
          component="button"
          type="button"
          size="sm"
          ta="center"
          onClick={() => {
            setCode('');
            setMfaPending(false);
            setMode('password');
          }}
        >
          Back to sign-in
        </Anchor>
      </Stack>
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

      <Stack gap="xs">
        <Button
          component="a"
          href="/v1/api/auth/google"
          variant="default"
          leftSection={<IconBrandGoogleFilled size={16} />}
          fullWidth
        >
          Continue with Google
        </Button>
        <Button
          component="a"
          href="/v1/api/auth/microsoft"
          variant="default"
          leftSection={<IconBrandWindows size={16} />}
          fullWidth
        >
          Continue with Microsoft
        </Button>
      </Stack>
      <Divider label="or" labelPosition="center" />

      {mode === 'password' && (
        <form onSubmit={form.onSubmit((v) => login.mutate(v))} noValidate>
          <Stack gap="sm">
            <TextInput
              label="Email"
              type="email"
              autoComplete="username"
              key={form.key('email')}
              {...form.getInputProps('email')}
            />
            <PasswordInput
              label="Password"
              autoComplete="current-password"
              key={form.key('password')}
              {...form.getInputProps('password')}
            />
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
              <TextInput
                label="Email"
                type="email"
                autoComplete="username"
                key={linkForm.key('email')}
                {...linkForm.getInputProps('email')}
              />
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
            <TextInput
              label="Work email"
              type="email"
              autoComplete="username"
              key={ssoForm.key('email')}
              {...ssoForm.getInputProps('email')}
            />
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
