import { notifications } from '@mantine/notifications';
import { ApiError, isAbortError, messageOf } from './api-client.ts';

/** SPEC.md §8, word for word. */
export const ERROR_TOASTS = {
  401: { title: 'Not Authenticated', message: 'Sorry, you have to be logged in to access this!' },
  403: { title: 'Access Denied', message: 'Please refresh the page and try again.' },
  422: { title: 'Validation Error', message: '' },
  500: { title: '', message: 'Something went wrong. Please contact the support team.' },
} as const;

/**
 * Shows the toast for a failed call: the known statuses with their code as toast id (so a burst of
 * failures shows one toast), no toast for 404 or an aborted request, otherwise the server's message
 * (or the 500 text).
 */
export function toastApiError(error: unknown): void {
  if (isAbortError(error)) return;
  if (!(error instanceof ApiError)) {
    notifications.show({ id: 'client-error', color: 'red', message: ERROR_TOASTS[500].message });
    return;
  }
  if (error.status === 404) return;
  const known = ERROR_TOASTS[error.status as keyof typeof ERROR_TOASTS];
  if (known) {
    const message = error.status === 422 ? error.message : known.message;
    notifications.show({
      id: String(error.status),
      color: 'red',
      title: known.title || undefined,
      message: message || known.title,
    });
    return;
  }
  // "the server's message field (or nested data.message), falling back to the 500 text" — never the
  // HTTP status text.
  notifications.show({ color: 'red', message: messageOf(error.data) ?? ERROR_TOASTS[500].message });
}
