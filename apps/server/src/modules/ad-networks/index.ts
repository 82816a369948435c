import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { createSecretBox } from '../../lib/crypto.ts';
import type { AdapterOptions } from '../integrations/registry.ts';
import { createMetaAdapter } from './meta/adapter.ts';
import { adAudienceRoutes } from './audience-routes.ts';
import { adNetworkRoutes } from './routes.ts';
import { createAdNetworkService } from './service.ts';
import type { AdNetworkService } from './service.ts';

export { AD_AUDIENCE_PUSH_JOB, createAdNetworkService } from './service.ts';
export type { AdNetworkService } from './service.ts';
export { hashEmail, normaliseEmail } from './hashing.ts';

declare module 'fastify' {
  // Module augmentation needs an interface.
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  interface FastifyInstance {
    adNetworks: AdNetworkService;
  }
}

/** Ad networks (issue 39, decision 0025): the adapters from configuration, the push job, the service. */
/** How stale an audience may get before it is pushed again, and how often that is looked at. */
const RESYNC_EVERY_MS = 6 * 3600_000;
const RESYNC_CHECK_MS = 15 * 60_000;

export function setupAdNetworks(
  app: FastifyInstance,
  opts: { adapters?: AdapterOptions; workers?: boolean } = {},
): void {
  const service = createAdNetworkService({
    db: app.db,
    queue: app.queue,
    box: createSecretBox(app.config.appSecret),
    adapters: { meta: createMetaAdapter(app.config.vendors.meta, opts.adapters) },
    log: app.log,
  });
  service.register();
  app.decorate('adNetworks', service);
  let timer: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    if (opts.workers === false) return;
    timer = setInterval(() => {
      service
        .requestDue(RESYNC_EVERY_MS)
        .catch((err: unknown) => app.log.warn({ err }, 'could not queue audience pushes'));
    }, RESYNC_CHECK_MS);
    timer.unref();
  });
  app.addHook('onClose', async () => clearInterval(timer));
}

/** Settings › Ad networks and network audiences under /v1. */
export const adNetworkApiRoutes: FastifyPluginAsync = async (app) => {
  await app.register(adNetworkRoutes(app.adNetworks));
  await app.register(adAudienceRoutes(app.adNetworks));
};
