import { ApiError } from '../../../lib/api-client.ts';

/**
 * The message a 409 or 422 reply gives for one body field (`errors[{field: 'body.domain'}]`), as a
 * sentence; null when the reply names no such field. fieldErrorsOf reads 422s only, and adding a
 * domain answers 409 for a duplicate.
 */
export function bodyFieldError(error: unknown, field: string): string | null {
  if (!(error instanceof ApiError) || (error.status !== 409 && error.status !== 422)) return null;
  const errors = (error.data as { errors?: unknown } | null)?.errors;
  if (!Array.isArray(errors)) return null;
  for (const e of errors as { field?: unknown; message?: unknown }[]) {
    if (e.field !== `body.${field}` || typeof e.message !== 'string') continue;
    // Kept as written otherwise: it may start with the domain ('acme.com is already…').
    return /^(is|must|has) /.test(e.message) ? `This ${e.message}` : e.message;
  }
  return null;
}

export const domainFieldError = (error: unknown) => bodyFieldError(error, 'domain');
