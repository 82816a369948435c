import { Anchor, Button, Group, PinInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { FormError } from '../../../components/form-error.tsx';
import { loadSession, setMfaPending } from '../../../lib/auth/store.ts';
import { verifyMfa } from '../api/auth-api.ts';

/**
 * The code step after a password, a sign-in link or a Google/Microsoft sign-in of a user with TOTP on.
 * Its own chunk: most sign-ins never show it (issue 19: /login JS budget).
 */
export default function MfaStep({ onBack }: { onBack: () => void }) {
  const [code, setCode] = useState('');
  const [recovery, setRecovery] = useState(false);
  const mfa = useMutation({ mutationFn: verifyMfa, meta: { toast: false }, onSuccess: () => loadSession() });

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
          onBack();
        }}
      >
        Back to sign-in
      </Anchor>
    </Stack>
  );
}
