import type { FastifyInstance } from 'fastify';
import type { Permission } from '@rally/shared';

/**
 * What a route needs (STYLE.md: every route declares its access). `public`: anyone; `session`: a
 * signed-in user; a permission: a signed-in member of the `x-client-id` client with that permission.
 */
export type Access = 'public' | 'session' | { permission: Permission };

declare module 'fastify' {
  // Module augmentation needs an interface.
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  interface FastifyContextConfig {
    access?: Access;
  }
}

/** Refuses, at registration, any route in this context that does not declare its access. */
export function requireAccessDeclarations(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!route.config?.access) {
      throw new Error(
        `Route ${String(route.method)} ${route.url} declares no access: set config.access to 'public', 'session' or { permission }`,
      );
    }
  });
}
