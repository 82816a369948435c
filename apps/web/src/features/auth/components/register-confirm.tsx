import { Anchor, Button, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation } from '@tanstack/react-query';
import { zod4Resolver } from 'mantine-form-zod-resolver';
import { Link } from 'react-router';
import { z } from 'zod';
import { loadSession } from '../../../lib/auth/store.ts';
import { ApiError } from '../../../lib/api-client.ts';
import { confirmRegistration } from '../api/auth-api.ts';
import { FormError, fieldErrorsOf } from '../../../components/form-error.tsx';

const confirmForm = z.object({ password: z.string().min(1, 'Enter the password you chose') });

/**
 * /register?confirm=: the e-mailed sign-up link. Asking for the password chosen at sign-up means
 * only the person who started the sign-up can finish it, even with the link forwarded or with a
 * sign-up someone else started for this address (decision 0024).
 */
export function RegisterConfirm({ token }: { token: string }) {
  const form = useForm({
    mode: 'uncontrolled',
    initialValues: { password: '' },
    validate: zod4Resolver(confirmForm),
  });
  const finish = useMutation({
    mutationFn: (password: string) => confirmRegistration(token, password),
    meta: { toast: false },
    onSuccess: () => loadSession(),
    onError: (err) => form.setErrors(fieldErrorsOf(err)),
  });
  const linkSpent = finish.error instanceof ApiError && finish.error.status === 400;
  return (
    <Stack gap="md">
      <div>
        <Title order={1} fz={24}>
          Finish creating your account
        </Title>
        <Text c="dimmed" size="sm">
          Enter the password you chose when you signed up.
        </Text>
      </div>
      <form onSubmit={form.onSubmit((v) => finish.mutate(v.password))} noValidate>
        <Stack gap="sm">
          <PasswordInput
            label="Password"
            autoComplete="current-password"
            key={form.key('password')}
            {...form.getInputProps('password')}
          />
          {Object.keys(fieldErrorsOf(finish.error)).length === 0 && <FormError error={finish.error} />}
          <Button type="submit" fullWidth loading={finish.isPending} disabled={linkSpent}>
            Create my account
          </Button>
        </Stack>
      </form>
      <Text size="sm" ta="center" c="dimmed">
        <Anchor component={Link} to="/login" fw={600}>
          Sign In
        </Anchor>
        {' · '}
        <Anchor component={Link} to="/register" fw={600}>
          Sign up again
        </Anchor>
      </Text>
    </Stack>
  );
}
