import { Alert } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
import { ApiError } from '../../../lib/api-client.ts';

/** An inline error for a form whose call failed (its toast is switched off). */
export function FormError({ error }: { error: unknown }) {
  if (!error) return null;
  const message =
    error instanceof ApiError
      ? error.status >= 500
        ? 'Something went wrong. Please contact the support team.'
        : error.message
      : 'Something went wrong. Please contact the support team.';
  return (
    <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} role="alert">
      {message}
    </Alert>
  );
}
