import { Anchor, Button, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation } from '@tanstack/react-query';
import { zod4Resolver } from 'mantine-form-zod-resolver';
import { Link, useSearchParams } from 'react-router';
import { registerBody } from '@rally/shared/schemas/auth';
import { register } from '../api/auth-api.ts';
import { FormError } from '../../../components/form-error.tsx';
import { NameFields } from '../../../components/name-fields.tsx';
import { RegisterConfirm } from './register-confirm.tsx';

/**
 * /register: self-serve sign-up; the new user owns their company's workspace. The server answers
 * every address alike and e-mails a link (decision 0024), so the form ends on "Check your e-mail";
 * /register?confirm= (that link) finishes the sign-up.
 */
export function RegisterScreen() {
  const [params] = useSearchParams();
  const confirm = params.get('confirm');
  const form = useForm({
    mode: 'uncontrolled',
    initialValues: { first_name: '', last_name: '', email: '', company_name: '', password: '' },
    validate: zod4Resolver(registerBody),
  });
  const signup = useMutation({ mutationFn: register, meta: { toast: false } });

  if (confirm) return <RegisterConfirm token={confirm} />;

  if (signup.isSuccess) {
    return (
      <Stack gap="md">
        <Title order={1} fz={24}>
          Check your e-mail
        </Title>
        <Text size="sm" role="status">
          We sent a message to <strong>{signup.variables.email}</strong>. Open the link in it within 24 hours
          and enter your password to finish creating your account.
        </Text>
        <Text size="sm" c="dimmed">
          Nothing arrived after a few minutes? Look in your spam folder, or check the address and sign up
          again. If you already have an account, the message says so: sign in instead.
        </Text>
        <Button variant="default" fullWidth onClick={() => signup.reset()}>
          Use a different address
        </Button>
        <Anchor component={Link} to="/login" size="sm" ta="center">
          Back to sign in
        </Anchor>
      </Stack>
    );
  }

  return (
    <Stack gap="md">
      <div>
        <Title order={1} fz={24}>
          Create your account
        </Title>
        <Text c="dimmed" size="sm">
          Start showing your prospects ads that feature their own rep.
        </Text>
      </div>
      <form onSubmit={form.onSubmit((v) => signup.mutate(registerBody.parse(v)))} noValidate>
        <Stack gap="sm">
          <NameFields form={form} />
          <TextInput
            label="Work email"
            type="email"
            autoComplete="email"
            key={form.key('email')}
            {...form.getInputProps('email')}
          />
          <TextInput
            label="Company"
            autoComplete="organization"
            key={form.key('company_name')}
            {...form.getInputProps('company_name')}
          />
          <PasswordInput
            label="Password"
            description="At least 10 characters"
            autoComplete="new-password"
            key={form.key('password')}
            {...form.getInputProps('password')}
          />
          <FormError error={signup.error} />
          <Button type="submit" fullWidth loading={signup.isPending}>
            Sign Up
          </Button>
        </Stack>
      </form>
      <Text size="sm" ta="center" c="dimmed">
        Already have an account?{' '}
        <Anchor component={Link} to="/login" fw={600}>
          Sign In
        </Anchor>
      </Text>
    </Stack>
  );
}
