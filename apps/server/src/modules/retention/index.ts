import type { FastifyInstance } from 'fastify';
import { askPeriodically } from '../../lib/periodic-job.ts';
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
  askPeriodically(app, {
    job: RETENTION_JOB,
    label: 'retention run',
    firstMs: FIRST_ASK_MS,
    everyMs: ASK_EVERY_MS,
    workers: opts.workers,
  });
}
