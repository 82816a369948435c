// The suppression module's declaration of app.suppressions.
import { adAudiencePreviewRoute } from './audience-preview-route.ts';
import type {} from '../suppressions/index.ts';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { createSecretBox } from '../../lib/crypto.ts';
import type { AdapterOptions } from '../integrations/registry.ts';
import { createGoogleAdsAdapter } from './google/adapter.ts';
import { createLinkedInAdapter } from './linkedin/adapter.ts';
import { createMetaAdapter } from './meta/adapter.ts';
import { adAudienceRoutes } from './audience-routes.ts';
import { adCampaignRoutes } from './campaign-routes.ts';
import { createAdCampaignService } from './campaign-service.ts';
import { createAdCampaignStats } from './campaign-stats.ts';
import type { AdCampaignStats } from './campaign-stats.ts';
import { adCampaignStatsRoutes } from './campaign-stats-routes.ts';
import { adCompanyRoutes } from './company-routes.ts';
import type { AdCampaignService } from './campaign-service.ts';
import { adImageFor, networkAdCopy } from '../creative/index.ts';
import { adNetworkRoutes } from './routes.ts';
import { createAdNetworkService } from './service.ts';
import type { AdNetworkService } from './service.ts';

export { AD_AUDIENCE_PUSH_JOB, createAdNetworkService } from './service.ts';
export { AD_CAMPAIGN_SYNC_JOB } from './campaign-service.ts';
export { AD_CAMPAIGN_STATS_JOB } from './campaign-stats.ts';
export type { AdNetworkService } from './service.ts';
export { hashEmail, normaliseEmail } from './hashing.ts';

declare module 'fastify' {
  // Module augmentation needs an interface.
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  interface FastifyInstance {
    adNetworks: AdNetworkService;
    adCampaigns: AdCampaignService;
    adCampaignStats: AdCampaignStats;
  }
}

/** Ad networks (issue 39, decision 0025): the adapters from configuration, the push job, the service. */
/** How stale an audience may get before it is pushed again, and how often that is looked at. */
const RESYNC_EVERY_MS = 6 * 3600_000;
const RESYNC_CHECK_MS = 15 * 60_000;
/** Results are pulled every hour: the networks update the day's numbers through the day. */
const STATS_EVERY_MS = 3600_000;

export function setupAdNetworks(
  app: FastifyInstance,
  opts: { adapters?: AdapterOptions; workers?: boolean } = {},
): void {
  const service = createAdNetworkService({
    db: app.db,
    queue: app.queue,
    box: createSecretBox(app.config.appSecret),
    adapters: {
      meta: createMetaAdapter(app.config.vendors.meta, opts.adapters),
      linkedin: createLinkedInAdapter(app.config.vendors.linkedin, opts.adapters),
      google: createGoogleAdsAdapter(app.config.vendors.google, opts.adapters),
    },
    log: app.log,
    suppressionKey: app.suppressions.key,
  });
  service.register();
  app.decorate('adNetworks', service);
  // Campaigns (decision 0026): the ads Rally renders, with each tag's fallback (no prospect).
  const campaigns = createAdCampaignService({
    db: app.db,
    queue: app.queue,
    base: service,
    log: app.log,
    creatives: {
      render: async (contentId, size) => {
        const ad = await adImageFor(app, { contentId, size });
        return ad ? { png: ad.png, key: ad.key } : null;
      },
      copy: (contentId) => networkAdCopy(app, contentId),
    },
  });
  campaigns.register();
  app.decorate('adCampaigns', campaigns);
  const stats = createAdCampaignStats({ db: app.db, queue: app.queue, base: service, log: app.log });
  stats.register();
  app.decorate('adCampaignStats', stats);
  let timer: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    if (opts.workers === false) return;
    timer = setInterval(() => {
      service
        .requestDue(RESYNC_EVERY_MS)
        .catch((err: unknown) => app.log.warn({ err }, 'could not queue audience pushes'));
      // Campaign status read back, and ads edited in Rally replaced, at every check.
      campaigns
        .requestDue(RESYNC_CHECK_MS)
        .catch((err: unknown) => app.log.warn({ err }, 'could not queue campaign syncs'));
      stats
        .requestDue(STATS_EVERY_MS)
        .catch((err: unknown) => app.log.warn({ err }, 'could not queue campaign results pulls'));
    }, RESYNC_CHECK_MS);
    timer.unref();
  });
  app.addHook('onClose', async () => clearInterval(timer));
}

/** Settings › Ad networks and network audiences under /v1. */
export const adNetworkApiRoutes: FastifyPluginAsync = async (app) => {
  await app.register(adNetworkRoutes(app.adNetworks));
  await app.register(adAudienceRoutes(app.adNetworks));
  await app.register(adAudiencePreviewRoute(app.adNetworks));
  await app.register(adCampaignRoutes(app.adNetworks, app.adCampaigns));
  await app.register(adCampaignStatsRoutes(app.adNetworks, app.adCampaignStats));
  await app.register(adCompanyRoutes(app.adNetworks));
};
