import type { FastifyInstance } from 'fastify';
import { askPeriodically } from '../../lib/periodic-job.ts';
import { attributionWindowDays } from './repository.ts';
import { dirtyLiftClients, refreshLift } from './store.ts';

export const LIFT_JOB = 'lift-outcomes';
/** How often the workers fold what syncs, imports and edits changed into the stored outcomes. */
const LIFT_EVERY_MS = 60_000;
/** The first ask soon after start: a migration's fill (0068) or a changed window is computed then. */
const LIFT_FIRST_MS = 10_000;

/**
 * Keeps the stored lift outcomes (store.ts) up to date in the background, where job workers run, so
 * a report does not pay for a sync's changes, or for the first computation of a large client (about
 * a minute for the reports bench's million targets), on its first read. Reports still refresh before
 * reading, so they are exact whether or not this has run.
 */
export function setupLift(app: FastifyInstance, opts: { workers?: boolean } = {}): void {
  app.queue.register(
    LIFT_JOB,
    async () => {
      for (const clientId of await dirtyLiftClients(app.db)) {
        await refreshLift(app.db, clientId, await attributionWindowDays(app.db, clientId));
      }
    },
    // One queued or running at a time: a run missed is the next interval's.
    { policy: 'exclusive', retryLimit: 0, expireInSeconds: 3600 },
  );
  askPeriodically(app, {
    job: LIFT_JOB,
    label: 'lift outcomes refresh',
    firstMs: LIFT_FIRST_MS,
    everyMs: LIFT_EVERY_MS,
    workers: opts.workers,
  });
}
