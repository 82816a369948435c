import { Anchor, Button, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation } from '@tanstack/react-query';
import { zod4Resolver } from 'mantine-form-zod-resolver';
import { Link } from 'react-router';
import { z } from 'zod';
import { passwordSchema } from '@rally/shared/schemas/auth';
import { useAuth } from '../../../lib/auth/store.ts';
import { changePassword } from '../api/auth-api.ts';
import { FormError } from '../../../components/form-error.tsx';

const schema = z
  .object({
    current_password: z.string().min(1, 'Enter your current password'),
    password: passwordSchema,
    confirm: z.string(),
  })
  .refine((v) => v.password === v.confirm, { message: 'The passwords do not match', path: ['confirm'] });

/** /change-password: a signed-in user changes their password (other sessions end). */
export function ChangePasswordScreen() {
  const auth = useAuth();
  const form = useForm({
    mode: 'uncontrolled',
    initialValues: { current_password: '', password: '', confirm: '' },
    validate: zod4Resolver(schema),
  });
  const change = useMutation({ mutationFn: changePassword, meta: { toast: false } });

  if (!auth.loggedIn) {
    return (
      <Stack gap="sm">
        <Title order={1} fz={24}>
          Change password
        </Title>
        <Text size="sm" c="dimmed">
          Sign in first, or reset a forgotten password by e-mail.
        </Text>
        <Button component={Link} to="/login">
          Sign in
        </Button>
        <Anchor component={Link} to="/reset-password" size="sm" ta="center">
          Forgot your password?
        </Anchor>
      </Stack>
    );
  }
  return (
    <Stack gap="md">
      <Title order={1} fz={24}>
        Change password
      </Title>
      {change.isSuccess ? (
        <>
          <Text size="sm" role="status">
            Your password has been changed. Your other sessions were signed out.
          </Text>
          <Button component={Link} to="/">
            Continue
          </Button>
        </>
      ) : (
        <form
          onSubmit={form.onSubmit((v) =>
            change.mutate({ current_password: v.current_password, password: v.password }),
          )}
          noValidate
        >
          <Stack gap="sm">
            <PasswordInput
              label="Current password"
              autoComplete="current-password"
              key={form.key('current_password')}
              {...form.getInputProps('current_password')}
            />
            <PasswordInput
              label="New password"
              description="At least 10 characters"
              autoComplete="new-password"
              key={form.key('password')}
              {...form.getInputProps('password')}
            />
            <PasswordInput
              label="Repeat the new password"
              autoComplete="new-password"
              key={form.key('confirm')}
              {...form.getInputProps('confirm')}
            />
            <FormError error={change.error} />
            <Button type="submit" fullWidth loading={change.isPending}>
              Change password
            </Button>
          </Stack>
        </form>
      )}
    </Stack>
  );
}
