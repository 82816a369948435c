import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';

/** The text SPEC.md §8 shows for a 500, used as our message too so logs and toasts agree. */
export const INTERNAL_ERROR_MESSAGE = 'Something went wrong. Please contact the support team.';

export type FieldProblem = { field: string; message: string };

/**
 * A 422 naming the field, for rules a schema cannot express (a wrong current password, a bad code);
 * or a 409 naming it, when the value clashes with what is stored (a domain another client holds).
 */
export class FieldError extends Error {
  readonly statusCode: 422 | 409;
  readonly errors: FieldProblem[];
  constructor(errors: FieldProblem[], statusCode: 422 | 409 = 422) {
    super(errors.map((e) => `${e.field}: ${e.message}`).join('; '));
    this.name = 'FieldError';
    this.errors = errors;
    this.statusCode = statusCode;
  }
}

export function fieldError(field: string, message: string): FieldError {
  return new FieldError([{ field, message }]);
}

/** A 409 naming the field whose value clashes with stored data. */
export function fieldConflict(field: string, message: string): FieldError {
  return new FieldError([{ field, message }], 409);
}

/**
 * An error with a status; the error handler sends `{ message }` for it — a 5xx too, since the message
 * was written for the user ("Marketo did not answer…"), unlike an unexpected error's.
 */
export function httpError(statusCode: number, message: string): Error & { statusCode: number; expose: true } {
  return Object.assign(new Error(message), { statusCode, expose: true as const });
}

/**
 * One error shape for every API: `{ message, errors? }`. Validation failures are 422 and name the
 * field (`body.email: Invalid email address`); a 5xx never leaks internals.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(err)) {
      const where = err.validationContext ?? 'body';
      const errors: FieldProblem[] = err.validation.map((v) => {
        const field = [where, ...v.instancePath.split('/').filter(Boolean)].join('.');
        return { field, message: v.message ?? 'is invalid' };
      });
      const first = errors[0];
      return reply.code(422).send({
        message: first ? `${first.field}: ${first.message}` : 'Validation Error',
        errors,
      });
    }
    if (err instanceof FieldError) {
      const first = err.errors[0];
      return reply.code(err.statusCode).send({
        message: first ? `${first.field}: ${first.message}` : 'Validation Error',
        errors: err.errors,
      });
    }
    if (isResponseSerializationError(err)) {
      request.log.error({ err }, 'reply did not match its schema');
      return reply.code(500).send({ message: INTERNAL_ERROR_MESSAGE });
    }
    // Safety net (issue 20 item 4): input PostgreSQL refused as a value is the caller's mistake, not
    // ours. The schemas should have caught it with the field's name; this keeps it from being a 500.
    const pgCode = postgresCodeOf(err);
    if (pgCode && pgCode in BAD_VALUE_CODES) {
      request.log.warn({ err, pgCode }, 'PostgreSQL refused a value the schema let through');
      const message = BAD_VALUE_CODES[pgCode] ?? 'is not a valid value';
      return reply.code(422).send({
        message: `request: ${message}`,
        errors: [{ field: 'request', message }],
      });
    }
    const status = err.statusCode ?? 500;
    if (status >= 500 && (err as { expose?: unknown }).expose !== true) {
      request.log.error({ err }, 'request failed');
      return reply.code(status).send({ message: INTERNAL_ERROR_MESSAGE });
    }
    return reply.code(status).send({ message: err.message });
  });
}

/** PostgreSQL errors that mean "this value cannot be stored or read as that type" (class 22). */
const BAD_VALUE_CODES: Record<string, string> = {
  '22P05': 'holds a character PostgreSQL cannot store (NUL)',
  '22021': 'is not valid text (invalid UTF-8 or a lone UTF-16 surrogate)',
  '22003': 'holds a number out of range for its field',
  '22P02': 'holds a value that is not valid for its type',
  '22007': 'holds an invalid date or time',
  '22008': 'holds a date or time out of range',
};

/** The SQLSTATE of a PostgreSQL error, looked for in the error and its causes (drizzle wraps them). */
export function postgresCodeOf(err: unknown): string | null {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}

/** The single row a write with `.returning()` must produce; its absence is a bug, not bad input. */
export function oneRow<T>(rows: T[]): T {
  const row = rows[0];
  if (row === undefined) throw new Error('expected the statement to return a row');
  return row;
}
