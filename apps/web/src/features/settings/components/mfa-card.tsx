import {
  Alert,
  Badge,
  Box,
  Button,
  Code,
  CopyButton,
  Group,
  Image,
  Input,
  List,
  PinInput,
  SimpleGrid,
  Stack,
  Text,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconCheck, IconCopy, IconShieldCheck } from '@tabler/icons-react';
import { useId, useState } from 'react';
import { ApiError } from '../../../lib/api-client.ts';
import { useConfirmMfa } from '../api/confirm-mfa.ts';
import { useDisableMfa } from '../api/disable-mfa.ts';
import { useStartMfa } from '../api/start-mfa.ts';
import { FormError } from '../../../components/form-error.tsx';
import { SettingsCard } from './settings-card.tsx';

type Step = 'idle' | 'enrol' | 'codes' | 'disable';

/** A wrong code is a 422 on body.code; say so in words a user acts on. */
function codeError(error: unknown): string | null {
  if (!error) return null;
  if (error instanceof ApiError && error.status === 422)
    return 'That code is not correct. Check the code in your authenticator app and try again.';
  return null;
}

/** Six digits in a group named 'Authentication code', each box named for screen readers. */
function CodeInput({
  value,
  onChange,
  error,
}: {
  value: string;
  onChange: (v: string) => void;
  error: string | null;
}) {
  const errorId = useId();
  return (
    <div>
      <PinInput
        length={6}
        type="number"
        oneTimeCode
        value={value}
        onChange={onChange}
        error={Boolean(error)}
        aria-label="Authentication code"
        aria-describedby={error ? errorId : undefined}
        getInputProps={(i) => ({ 'aria-label': `Digit ${i + 1} of 6` })}
      />
      {error && (
        <Input.Error id={errorId} mt={6} role="alert">
          {error}
        </Input.Error>
      )}
    </div>
  );
}

/**
 * Two-step verification (TOTP): turn on (QR code and key, a first code, ten recovery codes shown
 * once) and turn off (a current code).
 */
export function MfaCard({ enabled }: { enabled: boolean }) {
  const [step, setStep] = useState<Step>('idle');
  const [code, setCode] = useState('');
  const start = useStartMfa();
  const confirm = useConfirmMfa();
  const disable = useDisableMfa();

  const reset = () => {
    setStep('idle');
    setCode('');
    start.reset();
    confirm.reset();
    disable.reset();
  };

  // The recovery codes stay on screen, although MFA is now on, until the user says they are saved.
  const showOn = step === 'codes' ? true : enabled;
  const status = (
    <Badge color={showOn ? 'green' : 'gray'} variant="light">
      {showOn ? 'On' : 'Off'}
    </Badge>
  );

  if (step === 'codes' && confirm.data) {
    const codes = confirm.data.recovery_codes;
    return (
      <SettingsCard title="Two-step verification" status={status}>
        <Alert color="green" variant="light" icon={<IconShieldCheck size={18} />} role="status">
          Two-step verification is on. From now on, sign-in asks for a code from your authenticator app.
        </Alert>
        <div>
          <Text fw={600} size="sm">
            Save your recovery codes
          </Text>
          <Text size="sm" c="dimmed">
            If you lose your phone, each of these codes signs you in once instead of an authenticator code.
            Keep them somewhere safe, such as a password manager. They are shown only now.
          </Text>
        </div>
        <List
          aria-label="Recovery codes"
          listStyleType="none"
          spacing={6}
          p="md"
          bg="gray.0"
          style={{ borderRadius: 'var(--mantine-radius-md)' }}
        >
          <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="xs" verticalSpacing={6}>
            {codes.map((c) => (
              <List.Item key={c} ff="monospace" fz="md">
                {c}
              </List.Item>
            ))}
          </SimpleGrid>
        </List>
        <Group justify="space-between">
          <CopyButton value={codes.join('\n')}>
            {({ copied, copy }) => (
              <Button
                variant="default"
                onClick={copy}
                leftSection={copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
              >
                {copied ? 'Copied' : 'Copy codes'}
              </Button>
            )}
          </CopyButton>
          <Button onClick={reset}>I have saved them</Button>
        </Group>
      </SettingsCard>
    );
  }

  if (step === 'enrol' && start.data) {
    const { qr_code, secret } = start.data;
    return (
      <SettingsCard
        title="Two-step verification"
        status={status}
        description="Set up your authenticator app (such as 1Password, Google Authenticator or Authy)."
      >
        <form
          onSubmit={(e) => {
            e.preventDefault();
            confirm.mutate(code, { onSuccess: () => setStep('codes') });
          }}
        >
          <Group align="flex-start" gap="xl" wrap="wrap">
            <Box
              p={6}
              bg="white"
              bd="1px solid var(--mantine-color-gray-3)"
              style={{ borderRadius: 'var(--mantine-radius-md)' }}
            >
              <Image src={qr_code} alt="QR code for your authenticator app" w={180} h={180} />
            </Box>
            <Stack gap="md" flex={1} miw={260}>
              <div>
                <Text size="sm" fw={600}>
                  1. Scan the QR code with your app
                </Text>
                <Text size="sm" c="dimmed">
                  Cannot scan it? Enter this key in the app instead:
                </Text>
                <Group gap="xs" mt={6} wrap="nowrap">
                  <Code fz="sm" data-testid="mfa-secret" style={{ wordBreak: 'break-all' }}>
                    {secret}
                  </Code>
                  <CopyButton value={secret}>
                    {({ copied, copy }) => (
                      <Button
                        size="compact-xs"
                        variant="subtle"
                        onClick={copy}
                        aria-label="Copy the key"
                        leftSection={copied ? <IconCheck size={14} /> : <IconCopy size={14} />}
                      >
                        {copied ? 'Copied' : 'Copy'}
                      </Button>
                    )}
                  </CopyButton>
                </Group>
              </div>
              <div>
                <Text size="sm" fw={600} mb={4}>
                  2. Enter the 6-digit code the app shows
                </Text>
                <CodeInput value={code} onChange={setCode} error={codeError(confirm.error)} />
              </div>
              {!codeError(confirm.error) && <FormError error={confirm.error} />}
              <Group gap="sm">
                <Button type="submit" loading={confirm.isPending} disabled={code.length < 6}>
                  Confirm
                </Button>
                <Button variant="default" onClick={reset}>
                  Cancel
                </Button>
              </Group>
            </Stack>
          </Group>
        </form>
      </SettingsCard>
    );
  }

  if (enabled) {
    return (
      <SettingsCard
        title="Two-step verification"
        status={status}
        description="Sign-in asks for a code from your authenticator app after your password."
      >
        {step === 'disable' ? (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              disable.mutate(code, {
                onSuccess: () => {
                  reset();
                  notifications.show({ color: 'green', message: 'Two-step verification is off.' });
                },
              });
            }}
          >
            <Stack gap="sm" align="flex-start">
              <Text size="sm">To turn it off, enter the current code from your authenticator app.</Text>
              <CodeInput value={code} onChange={setCode} error={codeError(disable.error)} />
              {!codeError(disable.error) && <FormError error={disable.error} />}
              <Group gap="sm">
                <Button type="submit" color="red" loading={disable.isPending} disabled={code.length < 6}>
                  Turn off two-step verification
                </Button>
                <Button variant="default" onClick={reset}>
                  Cancel
                </Button>
              </Group>
            </Stack>
          </form>
        ) : (
          <Group>
            <Button variant="outline" color="red" onClick={() => setStep('disable')}>
              Turn off
            </Button>
          </Group>
        )}
      </SettingsCard>
    );
  }

  return (
    <SettingsCard
      title="Two-step verification"
      status={status}
      description="Protect your account with a second step at sign-in: a code from an authenticator app on your phone."
    >
      <Group>
        <Button
          loading={start.isPending}
          leftSection={<IconShieldCheck size={16} />}
          onClick={() => start.mutate(undefined, { onSuccess: () => setStep('enrol') })}
        >
          Turn on
        </Button>
      </Group>
    </SettingsCard>
  );
}
