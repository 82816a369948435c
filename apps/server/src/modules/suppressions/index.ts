import type { FastifyInstance } from 'fastify';
import { createSuppressionKey } from './key.ts';
import { createSuppressionService } from './service.ts';
import type { SuppressionService } from './service.ts';

export { suppressionRoutes } from './routes.ts';
export { whyPageRoutes } from './why-page.ts';
export { createSuppressionKey, emailHashSql, normaliseEmail, suppressedSql } from './key.ts';
export type { SuppressionKey } from './key.ts';
export { isSuppressed, suppress, suppressedTest, suppressMany, unsuppress } from './service.ts';
export type { SuppressionService, SuppressOptions } from './service.ts';

declare module 'fastify' {
  // Module augmentation needs an interface.
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  interface FastifyInstance {
    /** The client suppression lists, bound to this app's key (decision 0027). */
    suppressions: SuppressionService;
  }
}

/** Decorates `app.suppressions`; call before the tracking engine, the syncs and the imports. */
export function setupSuppressions(app: FastifyInstance): SuppressionService {
  const service = createSuppressionService(app.database.db, createSuppressionKey(app.config.appSecret));
  app.decorate('suppressions', service);
  return service;
}
