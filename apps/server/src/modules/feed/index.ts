import type { FastifyInstance } from 'fastify';
import { createFeedBus } from './bus.ts';
import type { FeedBus } from './bus.ts';

export { feedRoutes, HEARTBEAT_SECONDS } from './routes.ts';
export { createFeedBus } from './bus.ts';
export type { FeedBus, FeedListener } from './bus.ts';
export { toFeedItem } from './items.ts';
export type { NewFeedItem, StoredFeedItem } from './items.ts';

declare module 'fastify' {
  // Module augmentation needs an interface.
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  interface FastifyInstance {
    /** Publishes new feed items to open feed pages (the engine, syncs and imports call it). */
    feedBus: FeedBus;
  }
}

/** Creates the feed bus on the root instance (Redis pub/sub when REDIS_URL is set); call early. */
export function setupFeed(app: FastifyInstance): void {
  const bus = createFeedBus({ db: app.db, redis: app.redis, log: app.log });
  app.decorate('feedBus', bus);
  app.addHook('onClose', async () => bus.close());
}
