import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
// The feed module's declaration of app.feedBus.
import type {} from '../feed/index.ts';
import { journeyRoutes } from './routes.ts';
import { createJourneyService } from './service.ts';
import type { JourneyService } from './service.ts';
import { readFeedItem } from './feed.ts';

export { createJourneyService, JOURNEY_JOB } from './service.ts';
export type { JourneyService } from './service.ts';

declare module 'fastify' {
  // Module augmentation needs an interface.
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  interface FastifyInstance {
    journeys: JourneyService;
  }
}

/**
 * Creates the journey service and registers its evaluation job; call before the queue starts. Where
 * job workers run, every journey is evaluated every `config.journeyEvaluateSeconds` (engagement
 * moves accounts within that time); a cohort sync and a journey save ask for a run at once.
 */
export function setupJourneys(app: FastifyInstance, opts: { workers?: boolean | undefined } = {}): void {
  const service = createJourneyService({
    db: app.db,
    queue: app.queue,
    log: app.log,
    chunk: app.config.journeyChunk,
    publish: (clientId, feedItemId) => {
      if (!app.hasDecorator('feedBus')) return;
      readFeedItem(app.db, feedItemId)
        .then((item) => item && app.feedBus.publish(clientId, item))
        .catch((err: unknown) => app.log.warn({ err }, 'journey: could not publish a move'));
    },
  });
  service.register();
  app.decorate('journeys', service);
  let timer: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    if (opts.workers === false) return;
    timer = setInterval(() => void service.requestEvaluation(), app.config.journeyEvaluateSeconds * 1000);
    timer.unref();
  });
  app.addHook('onClose', async () => clearInterval(timer));
}

/** The journey calls under /v1 (SPEC.md §7 "Journeys"). */
export const journeyApiRoutes: FastifyPluginAsync = async (app) => {
  await app.register(journeyRoutes(app.journeys));
};
