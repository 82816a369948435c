import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { adNetworkSetUp } from '../ad-networks/availability.ts';

/** Same-origin path that app.ts proxies to POSTHOG_HOST, so analytics traffic stays first-party. */
export const ANALYTICS_PROXY_PATH = '/ingest/ph';

export const appConfigReply = z.object({
  analytics: z.object({ key: z.string(), api_host: z.string() }).nullable(),
  gtm_id: z.string().nullable(),
  stripe_publishable_key: z.string().nullable(),
  /** Issue 42 item 3: the sign-in providers set up here; the login page offers only these. */
  sign_in: z.object({ google: z.boolean(), microsoft: z.boolean() }),
  /** The vendors whose OAuth app is set up here: only these are offered to connect. */
  connect: z.object({
    salesloft: z.boolean(),
    outreach: z.boolean(),
    salesforce: z.boolean(),
    hubspot: z.boolean(),
    /** Issue 39: ad networks (decision 0025). */
    meta: z.boolean(),
    linkedin: z.boolean(),
    google_ads: z.boolean(),
  }),
});

/** A vendor's OAuth app is usable when both its id and secret are set (the connect routes' check). */
const oauthReady = (v: { clientId: string | null; clientSecret: string | null }) =>
  Boolean(v.clientId && v.clientSecret);

/**
 * The third-party add-ons the browser may load (SPEC.md §1): each is null while unconfigured, so a
 * default start loads no third-party script and sends no analytics. Also which sign-in providers and
 * vendor connections this installation offers (booleans only, never an id or secret).
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
      sign_in: { google: app.config.google !== null, microsoft: app.config.microsoft !== null },
      connect: {
        salesloft: oauthReady(app.config.vendors.salesloft),
        outreach: oauthReady(app.config.vendors.outreach),
        salesforce: oauthReady(app.config.vendors.salesforce),
        hubspot: oauthReady(app.config.vendors.hubspot),
        meta: adNetworkSetUp(app.config.vendors, 'meta'),
        linkedin: adNetworkSetUp(app.config.vendors, 'linkedin'),
        google_ads: adNetworkSetUp(app.config.vendors, 'google'),
      },
    }),
  );
};
