import { Anchor, Button, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation } from '@tanstack/react-query';
import { zod4Resolver } from 'mantine-form-zod-resolver';
import { Link, useSearchParams } from 'react-router';
import { z } from 'zod';
import { passwordSchema } from '@rally/shared/schemas/auth';
import { requestPasswordReset, resetPassword } from '../api/auth-api.ts';
import { FormError } from '../../../components/form-error.tsx';

const setSchema = z
  .object({ password: passwordSchema, confirm: z.string() })
  .refine((v) => v.password === v.confirm, { message: 'The passwords do not match', path: ['confirm'] });

/** /reset-password asks for the e-mail; /reset-password?hash= (the mailed link) sets the new password. */
export function ResetPasswordScreen() {
  const [params] = useSearchParams();
  const hash = params.get('hash');
  const ask = useForm({
    mode: 'uncontrolled',
    initialValues: { email: '' },
    validate: zod4Resolver(z.object({ email: z.string().trim().email('Enter a valid e-mail address') })),
  });
  const set = useForm({
    mode: 'uncontrolled',
    initialValues: { password: '', confirm: '' },
    validate: zod4Resolver(setSchema),
  });
  const request = useMutation({ mutationFn: requestPasswordReset, meta: { toast: false } });
  const reset = useMutation({
    mutationFn: (password: string) => resetPassword(hash ?? '', password),
    meta: { toast: false },
  });

  if (hash) {
    return (
      <Stack gap="md">
        <Title order={1} fz={24}>
          Choose a new password
        </Title>
        {reset.isSuccess ? (
          <>
            <Text size="sm" role="status">
              {reset.data.message}
            </Text>
            <Button component={Link} to="/login" fullWidth>
              Sign in
            </Button>
          </>
        ) : (
          <form onSubmit={set.onSubmit((v) => reset.mutate(v.password))} noValidate>
            <Stack gap="sm">
              <PasswordInput
                label="New password"
                description="At least 10 characters"
                autoComplete="new-password"
                key={set.key('password')}
                {...set.getInputProps('password')}
              />
              <PasswordInput
                label="Repeat the new password"
                autoComplete="new-password"
                key={set.key('confirm')}
                {...set.getInputProps('confirm')}
              />
              <FormError error={reset.error} />
              <Button type="submit" fullWidth loading={reset.isPending}>
                Set password
              </Button>
            </Stack>
          </form>
        )}
      </Stack>
    );
  }

  return (
    <Stack gap="md">
      <div>
        <Title order={1} fz={24}>
          Reset your password
        </Title>
        <Text c="dimmed" size="sm">
          We will e-mail you a link to choose a new one.
        </Text>
      </div>
      {request.isSuccess ? (
        <Text size="sm" role="status">
          {request.data.message}
        </Text>
      ) : (
        <form onSubmit={ask.onSubmit((v) => request.mutate(v.email.trim()))} noValidate>
          <Stack gap="sm">
            <TextInput
              label="Email"
              type="email"
              autoComplete="username"
              key={ask.key('email')}
              {...ask.getInputProps('email')}
            />
            <FormError error={request.error} />
            <Button type="submit" fullWidth loading={request.isPending}>
              Send reset link
            </Button>
          </Stack>
        </form>
      )}
      <Anchor component={Link} to="/login" size="sm" ta="center">
        Back to sign in
      </Anchor>
    </Stack>
  );
}
