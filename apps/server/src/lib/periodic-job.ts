import type { FastifyInstance } from 'fastify';

/**
 * Asks the queue for `job` once `firstMs` after the app is ready and then every `everyMs`, where
 * job workers run (`workers` not false). The job itself is registered with the exclusive policy by
 * its module, so asks from every instance make one run; a failed ask is logged and the next one
 * tries again. The timers are unref'd and cleared on close.
 */
export function askPeriodically(
  app: FastifyInstance,
  spec: { job: string; label: string; firstMs: number; everyMs: number; workers?: boolean },
): void {
  let first: NodeJS.Timeout | undefined;
  let timer: NodeJS.Timeout | undefined;
  const ask = () => {
    app.queue
      .send(spec.job, {})
      .catch((err: unknown) => app.log.warn({ err }, `could not queue the ${spec.label}`));
  };
  app.addHook('onReady', async () => {
    if (spec.workers === false) return;
    first = setTimeout(ask, spec.firstMs);
    first.unref();
    timer = setInterval(ask, spec.everyMs);
    timer.unref();
  });
  app.addHook('onClose', async () => {
    clearTimeout(first);
    clearInterval(timer);
  });
}
