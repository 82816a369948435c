import { Alert, Button, Stack, Text } from '@mantine/core';
import { FormError, fieldErrorsOf } from '../../../components/form-error.tsx';
import { ApiError } from '../../../lib/api-client.ts';

/**
 * Why an editor's last save failed: a 409 (saved elsewhere since this was loaded) offers to reload;
 * field errors (422) show on their fields, so nothing here; anything else as a form error.
 */
export function EditorSaveError({ error, onReload }: { error: Error | null; onReload: () => Promise<void> }) {
  if (error instanceof ApiError && error.status === 409)
    return (
      <Alert color="orange" variant="light" title="Changed elsewhere" role="alert">
        <Stack gap="xs" align="flex-start">
          <Text size="sm">{error.message}</Text>
          <Button size="xs" variant="white" color="orange" onClick={() => void onReload()}>
            Reload
          </Button>
        </Stack>
      </Alert>
    );
  if (Object.keys(fieldErrorsOf(error)).length > 0) return null;
  return <FormError error={error} />;
}
