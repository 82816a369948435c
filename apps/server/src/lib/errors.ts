import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';

/** The text SPEC.md §8 shows for a 500, used as our message too so logs and toasts agree. */
export const INTERNAL_ERROR_MESSAGE = 'Something went wrong. Please contact the support team.';

export type FieldError = { field: string; message: string };

/**
 * One error shape for every API: `{ message, errors? }`. Validation failures are 422 and name the
 * field (`body.email: Invalid email address`); a 5xx never leaks internals.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(err)) {
      const where = err.validationContext ?? 'body';
      const errors: FieldError[] = err.validation.map((v) => {
        const field = [where, ...v.instancePath.split('/').filter(Boolean)].join('.');
        return { field, message: v.message ?? 'is invalid' };
      });
      const first = errors[0];
      return reply.code(422).send({
        message: first ? `${first.field}: ${first.message}` : 'Validation Error',
        errors,
      });
    }
    if (isResponseSerializationError(err)) {
      request.log.error({ err }, 'reply did not match its schema');
      return reply.code(500).send({ message: INTERNAL_ERROR_MESSAGE });
    }
    const status = err.statusCode ?? 500;
    if (status >= 500) {
      request.log.error({ err }, 'request failed');
      return reply.code(status).send({ message: INTERNAL_ERROR_MESSAGE });
    }
    return reply.code(status).send({ message: err.message });
  });
}
