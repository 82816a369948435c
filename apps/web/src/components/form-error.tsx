import { Alert } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
import { ApiError } from '../lib/api-client.ts';

const SERVER_TROUBLE = 'Something went wrong. Please contact the support team.';

/** An inline error for a form whose call failed (its toast is switched off). */
export function FormError({ error }: { error: unknown }) {
  if (!error) return null;
  const message =
    error instanceof ApiError
      ? error.status >= 500
        ? SERVER_TROUBLE
        : error.message
      : error instanceof Error
        ? error.message
        : SERVER_TROUBLE;
  return (
    <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} role="alert">
      {message}
    </Alert>
  );
}

/**
 * The field errors of a 422 reply (`errors[{field: 'body.current_password', message}]`), keyed by
 * the form field and phrased as a sentence ('is not your current password' → 'This is not…').
 */
export function fieldErrorsOf(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError) || error.status !== 422) return {};
  const errors = (error.data as { errors?: unknown } | null)?.errors;
  if (!Array.isArray(errors)) return {};
  const out: Record<string, string> = {};
  for (const e of errors as { field?: unknown; message?: unknown }[]) {
    if (typeof e.field !== 'string' || typeof e.message !== 'string') continue;
    const field = e.field.replace(/^body\./, '');
    out[field] = /^(is|must|has) /.test(e.message)
      ? `This ${e.message}`
      : e.message.charAt(0).toUpperCase() + e.message.slice(1);
  }
  return out;
}
