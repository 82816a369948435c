import { fieldError } from './errors.ts';

// The parser under @fastify/multipart (busboy) fails a body that is not well-formed multipart with a
// plain Error and no status: "Unexpected end of multipart data", "Part terminated early due to
// unexpected end of multipart data", "Multipart: Boundary not found". Left alone it was a 500 (the
// fuzz suite found it on both upload routes).
const MALFORMED = /multipart data|Boundary not found/;

/**
 * For the catch around a `request.parts()` loop: the body's own fault as a 422 naming it, or the
 * error unchanged.
 */
export function multipartProblem(err: unknown): unknown {
  const status = (err as { statusCode?: unknown }).statusCode;
  if (err instanceof Error && status === undefined && MALFORMED.test(err.message)) {
    return fieldError('body', `is not valid multipart/form-data (${err.message})`);
  }
  return err;
}
