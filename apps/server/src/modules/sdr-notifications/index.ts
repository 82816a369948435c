import type { FastifyInstance } from 'fastify';
import { createSdrNotificationService } from './service.ts';
import type { SdrNotificationService } from './service.ts';

export { sdrNotificationRoutes } from './routes.ts';
export type { SdrNotificationService } from './service.ts';

export const SDR_DIGEST_JOB = 'sdr.digest';
/** How often due digests are looked for (a daily digest goes out within this of its time). */
const DIGEST_CHECK_MS = 15 * 60_000;

declare module 'fastify' {
  // Module augmentation needs an interface.
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  interface FastifyInstance {
    sdrNotifications: SdrNotificationService;
  }
}

/**
 * The SDR notification service on the root instance (the tracking module calls `onSuper`), and the
 * digest job: queued every 15 minutes where job workers run; one run sends every digest due.
 * Call before the queue starts.
 */
export function setupSdrNotifications(app: FastifyInstance, opts: { workers?: boolean } = {}): void {
  const service = createSdrNotificationService({
    db: app.db,
    outbox: app.outbox,
    publicUrl: app.config.publicUrl,
    log: app.log,
  });
  app.decorate('sdrNotifications', service);
  app.queue.register(
    SDR_DIGEST_JOB,
    async () => {
      const sent = await service.runDigests();
      if (sent) app.log.info({ sent }, 'SDR digests queued');
    },
    { policy: 'stately' },
  );
  let timer: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    if (opts.workers === false) return;
    timer = setInterval(() => {
      app.queue
        .send(SDR_DIGEST_JOB, {}, { singletonKey: 'sdr-digest' })
        .catch((err: unknown) => app.log.warn({ err }, 'could not queue SDR digests'));
    }, DIGEST_CHECK_MS);
    timer.unref();
  });
  app.addHook('onClose', async () => clearInterval(timer));
}
