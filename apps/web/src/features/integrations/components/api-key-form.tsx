import { Button, PasswordInput, Stack, Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import { zod4Resolver } from 'mantine-form-zod-resolver';
import { z } from 'zod';
import { FormError, fieldErrorsOf } from '../../../components/form-error.tsx';
import { useConnect } from '../api/integrations.ts';

const schema = z.object({ api_key: z.string().trim().min(10, 'Enter the API key (at least 10 characters)') });

/** Apollo connects with a master API key instead of OAuth (API-NOTES §3). */
export function ApiKeyForm({
  clientId,
  returnTo,
  onDone,
}: {
  clientId: string;
  returnTo: 'onboarding' | 'connections';
  onDone: () => void;
}) {
  const connect = useConnect(clientId);
  const form = useForm({ initialValues: { api_key: '' }, validate: zod4Resolver(schema) });
  const serverErrors = fieldErrorsOf(connect.error);
  return (
    <form
      onSubmit={form.onSubmit((v) =>
        connect.mutate({ source: 'apolloio', apiKey: v.api_key, returnTo }, { onSuccess: onDone }),
      )}
    >
      <Stack>
        <Text size="sm" c="dimmed">
          In Apollo, open Settings › Integrations › API and create a <b>master</b> API key (sequences and
          users need one). Rally stores it encrypted.
        </Text>
        <PasswordInput
          label="Apollo API key"
          autoComplete="off"
          {...form.getInputProps('api_key')}
          error={form.errors.api_key ?? serverErrors.api_key}
        />
        {connect.isError && !serverErrors.api_key && <FormError error={connect.error} />}
        <Button type="submit" loading={connect.isPending}>
          Connect Apollo
        </Button>
      </Stack>
    </form>
  );
}
