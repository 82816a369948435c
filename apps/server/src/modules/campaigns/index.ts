import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { campaignRoutes } from './routes.ts';
import { createCampaignService } from './service.ts';
import type { CampaignService } from './service.ts';

export { createCampaignService, fileSlug } from './service.ts';
export type { CampaignService } from './service.ts';
export { demoCampaignId, seedDemoCampaigns } from './demo.ts';

declare module 'fastify' {
  // Module augmentation needs an interface.
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  interface FastifyInstance {
    campaigns: CampaignService;
  }
}

/** Creates the campaign service (campaigns, their ad downloads, people-based cohorts). */
export function setupCampaigns(app: FastifyInstance): void {
  app.decorate('campaigns', createCampaignService(app));
}

/** The campaign and download calls under /v1 (SPEC.md §7). */
export const campaignApiRoutes: FastifyPluginAsync = async (app) => {
  await app.register(campaignRoutes(app.campaigns));
};
