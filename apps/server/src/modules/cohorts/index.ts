import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
// The journeys module's declaration of app.journeys.
import type {} from '../journeys/index.ts';
import { cohortRoutes } from './routes.ts';
import { createCohortService } from './service.ts';
import type { CohortService } from './service.ts';

export { COHORT_SYNC_JOB, createCohortService } from './service.ts';
export type { CohortService } from './service.ts';
export { demoCohortId, demoJourneyId, seedDemoCohorts } from './demo.ts';

declare module 'fastify' {
  // Module augmentation needs an interface.
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  interface FastifyInstance {
    cohorts: CohortService;
  }
}

/** Creates the cohort service and registers its sync job; call before the queue starts. */
export function setupCohorts(app: FastifyInstance): void {
  const service = createCohortService({
    db: app.db,
    queue: app.queue,
    log: app.log,
    heartbeatSeconds: app.config.jobHeartbeatSeconds,
    chunk: app.config.cohortSyncChunk,
    holdoutPercent: app.config.holdoutDefaultPercent,
    onSynced: async (cohortId) => {
      if (app.hasDecorator('journeys')) await app.journeys.afterCohortSync(cohortId);
    },
  });
  service.register();
  app.decorate('cohorts', service);
}

/** The cohort calls under /v1 (SPEC.md §7 "Cohorts"). */
export const cohortApiRoutes: FastifyPluginAsync = async (app) => {
  await app.register(cohortRoutes(app.cohorts));
};
