import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

/** Same-origin path that app.ts proxies to POSTHOG_HOST, so analytics traffic stays first-party. */
export const ANALYTICS_PROXY_PATH = '/ingest/ph';

export const appConfigReply = z.object({
  analytics: z.object({ key: z.string(), api_host: z.string() }).nullable(),
  gtm_id: z.string().nullable(),
  stripe_publishable_key: z.string().nullable(),
});

/**
 * The third-party add-ons the browser may load (SPEC.md §1): each is null while unconfigured, so a
 * default start loads no third-party script and sends no analytics.
 */
export const appConfigRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/config',
    {
      config: { access: 'public' },
      schema: { tags: ['app'], response: { 200: appConfigReply } },
    },
    async () => ({
      analytics: app.config.posthog ? { key: app.config.posthog.key, api_host: ANALYTICS_PROXY_PATH } : null,
      gtm_id: app.config.gtmId,
      stripe_publishable_key: app.config.stripePublishableKey,
    }),
  );
};
