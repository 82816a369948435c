import type { FastifyInstance } from 'fastify';
import { createSecretBox } from '../../lib/crypto.ts';
import { createWebhookService } from './service.ts';
import type { WebhookService } from './service.ts';

export { hooklyRoutes } from './routes.ts';
export { createWebhookService, newSecret, sign, signedHeaders, WEBHOOK_JOB } from './service.ts';
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
  opts: { workers?: boolean; retryDelaySeconds?: number; allowPrivate: boolean },
): WebhookService {
  const service = createWebhookService({
    db: app.db,
    queue: app.queue,
    box: createSecretBox(app.config.appSecret),
    log: app.log,
    allowPrivate: opts.allowPrivate,
    retryDelaySeconds: opts.retryDelaySeconds,
  });
  service.register();
  app.decorate('webhooks', service);
  let sweep: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    if (opts.workers === false) return;
    sweep = setInterval(() => {
      service.requeueOverdue().catch((err: unknown) => app.log.warn({ err }, 'webhook sweep failed'));
    }, SWEEP_EVERY_MS);
    sweep.unref();
  });
  app.addHook('onClose', async () => clearInterval(sweep));
  return service;
}
