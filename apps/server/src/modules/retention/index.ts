import type { FastifyInstance } from 'fastify';
import { runRetention } from './run.ts';

export { retentionRoutes } from './routes.ts';
export { runRetention } from './run.ts';
export type { RetentionOptions, RetentionTotals } from './run.ts';
export { foldBatch, foldCutoff } from './fold.ts';
export { getRetention } from './settings.ts';

export const RETENTION_JOB = 'retention.daily';
/** How often the run is asked for: every run is idempotent, so asking again after a restart costs little. */
const ASK_EVERY_MS = 24 * 3_600_000;
/**
 * The first ask, after start: not at once, so a fresh server (or a test's app) writing backdated
 * events while it starts is not folded under its feet.
 */
const FIRST_ASK_MS = 10 * 60_000;

/**
 * The daily retention job (decision 0032): a queue job, one queued or running at a time whichever
 * instance asks (exclusive policy), asked for ten minutes after start and then daily where job
 * workers run; call before the queue starts.
 */
export function setupRetention(app: FastifyInstance, opts: { workers?: boolean } = {}): void {
  app.queue.register(
    RETENTION_JOB,
    async () => {
      const started = Date.now();
      const totals = await runRetention(app.db);
      app.log.info({ ...totals, ms: Date.now() - started }, 'retention run');
    },
    // One queued or running at a time; a run missed is the next ask's.
    { policy: 'exclusive', retryLimit: 0 },
  );
  let first: NodeJS.Timeout | undefined;
  let timer: NodeJS.Timeout | undefined;
  const ask = () => {
    app.queue
      .send(RETENTION_JOB, {})
      .catch((err: unknown) => app.log.warn({ err }, 'could not queue the retention run'));
  };
  app.addHook('onReady', async () => {
    if (opts.workers === false) return;
    first = setTimeout(ask, FIRST_ASK_MS);
    first.unref();
    timer = setInterval(ask, ASK_EVERY_MS);
    timer.unref();
  });
  app.addHook('onClose', async () => {
    clearTimeout(first);
    clearInterval(timer);
  });
}
