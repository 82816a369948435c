import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

/** Liveness and readiness probes for load balancers and orchestrators. */
export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/healthz',
    {
      config: { access: 'public' },
      schema: { hide: true, response: { 200: z.object({ status: z.literal('ok') }) } },
      logLevel: 'warn',
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      config: { access: 'public' },
      schema: {
        hide: true,
        response: {
          200: z.object({
            status: z.literal('ok'),
            database: z.enum(['pglite', 'postgres']),
            // Shared state across instances (REDIS_URL): 'down' does not make the instance unready,
            // it serves without it (limits per instance, caches skipped; docs/deploy.md "Redis").
            redis: z.enum(['up', 'down', 'not configured']),
          }),
          503: z.object({ status: z.literal('unavailable'), message: z.string() }),
        },
      },
      logLevel: 'warn',
    },
    async (_request, reply) => {
      try {
        await app.database.ping();
        const redis = !app.redis
          ? ('not configured' as const)
          : app.redis.client.status === 'ready' && app.redis.listening()
            ? ('up' as const)
            : ('down' as const);
        return { status: 'ok' as const, database: app.database.driver, redis };
      } catch (err) {
        app.log.warn({ err }, 'readiness check failed');
        return reply.code(503).send({ status: 'unavailable' as const, message: 'database unreachable' });
      }
    },
  );
};
