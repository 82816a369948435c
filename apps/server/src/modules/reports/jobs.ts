import type { FastifyInstance } from 'fastify';
import { extendAccountMonths } from './account-rollups.ts';
import { dirtyClients, refreshAttribution } from './attribution.ts';
import { windowDaysOf } from './service.ts';

export const ATTRIBUTION_JOB = 'reports-attribution';
/** How often the workers fold what syncs, imports and edits changed into the stored attribution. */
const ATTRIBUTION_EVERY_MS = 60_000;

/**
 * Keeps the stored attribution (attribution.ts) and the account rollups' months (account-rollups.ts)
 * up to date in the background, where job workers run:
 * a report would otherwise pay for a sync's changes on its first read (the first computation of a
 * large client's year of pipeline takes minutes). Reports still refresh before reading, so they are
 * exact whether or not this has run.
 */
export function setupReports(app: FastifyInstance, opts: { workers?: boolean } = {}): void {
  let started = false;
  app.queue.register(
    ATTRIBUTION_JOB,
    async () => {
      // A request made while this runs is dropped (one queued or running at a time), so what was
      // changed meanwhile (a settings save's new window, a sync) is taken by another pass of this
      // run, not left for the next interval; at most five passes, the interval has the rest.
      for (let pass = 0; pass < 5; pass++) {
        const dirty = await dirtyClients(app.db);
        if (dirty.length === 0) break;
        for (const clientId of dirty) {
          await refreshAttribution(app.db, clientId, await windowDaysOf(app.db, clientId));
        }
      }
      await extendAccountMonths(app.db);
    },
    // One queued or running at a time: a run missed is the next interval's.
    { policy: 'exclusive', retryLimit: 0, expireInSeconds: 3600 },
  );
  const requestRun = () => {
    if (!started) return;
    app.queue
      .send(ATTRIBUTION_JOB, {})
      .catch((err: unknown) => app.log.warn({ err }, 'could not queue the attribution refresh'));
  };
  let timer: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    started = true;
    if (opts.workers === false) return;
    timer = setInterval(requestRun, ATTRIBUTION_EVERY_MS);
    timer.unref();
  });
  app.addHook('onClose', async () => clearInterval(timer));
}
