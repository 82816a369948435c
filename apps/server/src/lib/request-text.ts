import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { firstRequestTextProblem } from '@rally/shared/schemas/common';

// The marker fastify-type-provider-zod puts on its validation errors (Symbol.for, so shared): the error
// handler then answers them as every other schema failure, a 422 naming the field.
const ZOD_VALIDATION_ERROR = Symbol.for('ZodFastifySchemaValidationError');

/**
 * The Zod validator compiler, with one rule ahead of every schema (issue 20 item 4): no string in a
 * body, query string, path parameter or header may hold a NUL character or a lone UTF-16 surrogate,
 * which PostgreSQL cannot store (22P05, 22021) and which used to answer 500; and none may nest deeper
 * than MAX_NESTING (thousands of nested arrays overflowed the stack: the fuzz suite's 500). Checked
 * here once for every route instead of in each of hundreds of string schemas.
 */
export const storableTextValidatorCompiler: FastifySchemaCompiler<unknown> = (route) => {
  const validate = validatorCompiler(route as Parameters<typeof validatorCompiler>[0]);
  return (data: unknown) => {
    const problem = firstRequestTextProblem(data);
    if (problem) {
      const { path, message } = problem;
      const instancePath = `/${path.join('/')}`;
      return {
        error: [
          {
            [ZOD_VALIDATION_ERROR]: true,
            keyword: 'custom',
            instancePath,
            schemaPath: `#${instancePath}/custom`,
            message,
            params: { issue: { code: 'custom', path, message } },
          },
        ] as unknown as Error,
      };
    }
    return validate(data);
  };
};
