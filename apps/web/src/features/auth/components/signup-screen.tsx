import {
  Alert,
  Anchor,
  Button,
  Center,
  Group,
  Loader,
  PasswordInput,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQuery } from '@tanstack/react-query';
import { zod4Resolver } from 'mantine-form-zod-resolver';
import { Link, useSearchParams } from 'react-router';
import { z } from 'zod';
import { passwordSchema } from '@rally/shared/schemas/auth';
import { ApiError } from '../../../lib/api-client.ts';
import { loadSession } from '../../../lib/auth/store.ts';
import { acceptInvitation, getInvitationQueryOptions, signIn } from '../api/auth-api.ts';
import { FormError } from '../../../components/form-error.tsx';
import { RoleBadge } from '../../../components/role-badge.tsx';
import { NameFields } from '../../../components/name-fields.tsx';

const newAccount = z.object({
  first_name: z.string().trim().min(1, 'Enter your first name'),
  last_name: z.string().trim().min(1, 'Enter your last name'),
  password: passwordSchema,
});
const existingAccount = z.object({ password: z.string().min(1, 'Enter your password') });

/** /signup?hash=: accept an invitation, creating the account or signing in to an existing one. */
export function SignupScreen() {
  const [params] = useSearchParams();
  const hash = params.get('hash') ?? '';
  const invitation = useQuery({ ...getInvitationQueryOptions(hash), enabled: hash.length >= 20 });
  const form = useForm({
    mode: 'uncontrolled',
    initialValues: { first_name: '', last_name: '', password: '' },
    validate: zod4Resolver(newAccount),
  });
  const signInForm = useForm({
    mode: 'uncontrolled',
    initialValues: { password: '' },
    validate: zod4Resolver(existingAccount),
  });

  const accept = useMutation({
    meta: { toast: false },
    mutationFn: async (values: { first_name?: string; last_name?: string; password: string }) => {
      const inv = invitation.data;
      if (!inv) throw new Error('The invitation is not loaded');
      // An existing account signs in first, then accepts; a new one is created by the acceptance.
      if (inv.has_account) {
        const r = await signIn({ email: inv.email, password: values.password });
        if (r.mfa)
          throw new Error(
            'Your account uses two-step verification: sign in first, then open the invitation link again.',
          );
        return acceptInvitation({ hash });
      }
      return acceptInvitation({ hash, ...values });
    },
    onSuccess: () => loadSession(),
  });

  if (hash.length < 20 || (invitation.error instanceof ApiError && invitation.error.status === 404)) {
    return (
      <Stack gap="sm">
        <Title order={1} fz={24}>
          Invitation not found
        </Title>
        <Text c="dimmed" size="sm">
          This invitation is invalid or has expired. Ask the person who invited you to send it again.
        </Text>
        <Anchor component={Link} to="/login" size="sm">
          Go to sign in
        </Anchor>
      </Stack>
    );
  }
  if (invitation.isPending) {
    return (
      <Center py="xl" role="status" aria-label="Loading">
        <Loader />
      </Center>
    );
  }
  if (invitation.isError) return <FormError error={invitation.error} />;
  const inv = invitation.data;

  return (
    <Stack gap="md">
      <div>
        <Title order={1} fz={24}>
          Join {inv.client_name}
        </Title>
        <Group gap={6} mt={4}>
          <Text c="dimmed" size="sm">
            You were invited as
          </Text>
          <RoleBadge role={inv.role} />
        </Group>
      </div>
      {inv.has_account ? (
        <form onSubmit={signInForm.onSubmit((v) => accept.mutate(v))} noValidate>
          <Stack gap="sm">
            <Alert variant="light" color="indigo">
              You already have an account as <b>{inv.email}</b>. Enter its password to accept.
            </Alert>
            <PasswordInput
              label="Password"
              autoComplete="current-password"
              key={signInForm.key('password')}
              {...signInForm.getInputProps('password')}
            />
            <FormError error={accept.error} />
            <Button type="submit" fullWidth loading={accept.isPending}>
              Sign in and accept
            </Button>
          </Stack>
        </form>
      ) : (
        <form onSubmit={form.onSubmit((v) => accept.mutate(v))} noValidate>
          <Stack gap="sm">
            <TextInput label="Email" value={inv.email} readOnly disabled />
            <NameFields form={form} />
            <PasswordInput
              label="Password"
              description="At least 10 characters"
              autoComplete="new-password"
              key={form.key('password')}
              {...form.getInputProps('password')}
            />
            <FormError error={accept.error} />
            <Button type="submit" fullWidth loading={accept.isPending}>
              Accept invitation
            </Button>
          </Stack>
        </form>
      )}
    </Stack>
  );
}
