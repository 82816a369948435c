import type { FastifyInstance } from 'fastify';
import { cacheDepsOf } from '../../lib/shared-cache.ts';
import { createSecretBox } from '../../lib/crypto.ts';
import { createWebhookService } from './service.ts';
import type { WebhookService } from './service.ts';

export { hooklyRoutes } from './routes.ts';
export {
  createWebhookService,
  DELIVERY_RETENTION_DAYS,
  newSecret,
  retryDelayMs,
  sign,
  signedHeaders,
  WEBHOOK_JOB,
} from './service.ts';
export type { WebhookEvents, WebhookService } from './service.ts';
export { engagementData } from './samples.ts';

declare module 'fastify' {
  // Module augmentation needs an interface.
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  interface FastifyInstance {
    /** Webhook endpoints and deliveries; features emit their events through `app.webhooks.emit`. */
    webhooks: WebhookService;
  }
}

/** How often deliveries whose job was lost are looked for, where job workers run. */
const SWEEP_EVERY_MS = 60_000;

/**
 * Creates the webhook service on the root instance and registers its delivery job; call before the
 * queue starts and before the features that emit events are set up.
 */
export function setupWebhooks(
  app: FastifyInstance,
  opts: { workers?: boolean; retryScheduleSeconds?: readonly number[]; allowPrivate: boolean },
): WebhookService {
  const service = createWebhookService({
    db: app.db,
    queue: app.queue,
    box: createSecretBox(app.config.appSecret),
    log: app.log,
    allowPrivate: opts.allowPrivate,
    retryScheduleSeconds: opts.retryScheduleSeconds,
    caches: cacheDepsOf(app),
  });
  service.register();
  app.decorate('webhooks', service);
  let sweep: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    if (opts.workers === false) return;
    let sweeps = 0;
    sweep = setInterval(() => {
      service.requeueOverdue().catch((err: unknown) => app.log.warn({ err }, 'webhook sweep failed'));
      // Once an hour: finished deliveries past the retention leave the log.
      if (sweeps++ % 60 === 0) {
        service.pruneDeliveries().catch((err: unknown) => app.log.warn({ err }, 'webhook prune failed'));
      }
    }, SWEEP_EVERY_MS);
    sweep.unref();
  });
  app.addHook('onClose', async () => clearInterval(sweep));
  return service;
}
