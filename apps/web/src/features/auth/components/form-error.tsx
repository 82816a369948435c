import { Alert } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
import { ApiError } from '../../../lib/api-client.ts';

/** An inline error for a form whose call failed (its toast is switched off). */
export function FormError({ error }: { error: unknown }) {
  if (!error) return null;
  const fallback = 'Something went wrong. Please contact the support team.';
  const message =
    error instanceof ApiError
      ? error.status >= 500
        ? fallback
        : error.message
      : error instanceof Error
        ? error.message
        : fallback;
  return (
    <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} role="alert">
      {message}
    </Alert>
  );
}
