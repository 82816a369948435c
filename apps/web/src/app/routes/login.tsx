import { Anchor, Button, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { Link } from 'react-router';
import { paths } from '../../config/paths.ts';

/** Sign-in screen (auth layout). SPEC.md §2: the footer says 'New to the product?' with Sign Up. */
export default function LoginScreen() {
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
      <form method="post" action="/v1/api/auth" onSubmit={(e) => e.preventDefault()}>
        <Stack gap="sm">
          <TextInput label="Email" name="email" type="email" autoComplete="username" required />
          <PasswordInput label="Password" name="password" autoComplete="current-password" required />
          <Button type="submit" fullWidth mt="xs">
            Sign in
          </Button>
        </Stack>
      </form>
      <Text size="sm" ta="center" c="dimmed">
        New to the product?{' '}
        <Anchor component={Link} to={paths.register} fw={600}>
          Sign Up
        </Anchor>
      </Text>
    </Stack>
  );
}
