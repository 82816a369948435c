import { Text } from '@mantine/core';
import { Suspense, lazy } from 'react';
import { ApiError } from '../lib/api-client.ts';

// Most forms never fail, and the sign-in form is the first download: the alert loads with the first
// error (issue 19). Until then the message shows as plain red text, so nothing waits for it.
const FormErrorAlert = lazy(() => import('./form-error-alert.tsx'));

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
    <Suspense
      fallback={
        <Text c="red.9" size="sm">
          {message}
        </Text>
      }
    >
      <FormErrorAlert message={message} />
    </Suspense>
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
