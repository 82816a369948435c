import type { FastifyInstance } from 'fastify';
import { createCharging } from './charging.ts';
import type { Charging } from './charging.ts';
import { createPaymentProvider } from './providers/index.ts';
import type { PaymentProvider } from './providers/index.ts';
import { createBillingService } from './service.ts';
import type { BillingService } from './service.ts';

export { billerRoutes, scBillingRoutes, stripeWebhookRoutes } from './routes.ts';
export { createCharging, planInvoices, CHARGE_LEASE_MS, RETRY_DELAYS_HOURS } from './charging.ts';
export type { Charging, ChargingDeps, RunResult } from './charging.ts';
export { createBillingService } from './service.ts';
export type { BillingService } from './service.ts';
export * from './providers/index.ts';
export { seedDemoBilling } from './demo.ts';

export const BILLING_JOB = 'billing-run';
/** How often the billing run is asked for (it also runs after a new card). */
export const BILLING_EVERY_MS = 5 * 60_000;

declare module 'fastify' {
  // Module augmentation needs an interface.
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  interface FastifyInstance {
    billing: { service: BillingService; charging: Charging; provider: PaymentProvider; now: () => Date };
  }
}

/**
 * Creates the payment provider, the billing service and the billing run (a queue job, one at a time
 * whichever instance asks), asked for at start and every five minutes; call before the queue starts. `now` is injectable so tests set the date.
 */
export function setupBilling(app: FastifyInstance, opts: { now?: () => Date; workers?: boolean } = {}): void {
  const now = opts.now ?? (() => new Date());
  const provider = createPaymentProvider(app.config, app.db, now);
  const charging = createCharging({ db: app.db, provider, now, log: app.log, events: app.webhooks });
  // Before the queue starts (e.g. the demo seed adding a card) there is nothing to ask: the first
  // run at start covers it.
  let started = false;
  const requestRun = () => {
    if (!started) return;
    app.queue.send(BILLING_JOB, {}).catch((err: unknown) => app.log.warn({ err }, 'could not queue billing'));
  };
  const service = createBillingService({ db: app.db, provider, charging, now, requestRun });
  app.queue.register(
    BILLING_JOB,
    async () => {
      const done = await charging.run();
      if (done.invoiced || done.paid || done.failed || done.actionRequired) app.log.info(done, 'billing run');
    },
    // One queued or running at a time; a run missed is the next interval's.
    { policy: 'exclusive', retryLimit: 0 },
  );
  app.decorate('billing', { service, charging, provider, now });

  // Asked for at start and every few minutes where job workers run; runs one at a time.
  let timer: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    started = true;
    if (opts.workers === false) return;
    requestRun();
    timer = setInterval(requestRun, BILLING_EVERY_MS);
    timer.unref();
  });
  app.addHook('onClose', async () => clearInterval(timer));
}
