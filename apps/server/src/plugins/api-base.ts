import type { FastifyPluginAsync } from 'fastify';
import { enforceAccess, requireAccessDeclarations } from '../lib/access.ts';
import { idempotency } from '../lib/idempotency.ts';

/**
 * One of the three API bases (/v1, /sc, /biller). Each is its own encapsulated plugin so that it can
 * run in a process of its own (SERVICES=main,sc,biller); feature modules register inside it.
 */
export type ApiBaseOptions = { modules: FastifyPluginAsync[] };

export const apiBase: FastifyPluginAsync<ApiBaseOptions> = async (app, opts) => {
  requireAccessDeclarations(app);
  enforceAccess(app);
  idempotency(app);
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ message: `Not found: ${request.method} ${request.url.split('?')[0]}` }),
  );
  for (const module of opts.modules) await app.register(module);
};
