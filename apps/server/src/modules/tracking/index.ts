import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
// The feed module's declaration of app.feedBus.
import type {} from '../feed/index.ts';
import type { WebhookEventType } from '@rally/shared/schemas/hookly';
import { engagementData } from '../hookly/index.ts';
// The suppression module's declaration of app.suppressions.
import type {} from '../suppressions/index.ts';
import { createTrackingService } from './service.ts';
import type { IngestOutcome, TrackingService } from './service.ts';
import type { StoredFeedItem } from './repository.ts';
import { registerTransitions, scheduleTransitions } from './transitions.ts';
import { trackingTagRoutes } from './routes.ts';

export { trackingApiRoutes } from './routes.ts';
export { adFastLane } from './fast-lane.ts';
export type { FastLane } from './fast-lane.ts';
export {
  adsRunFor,
  clickDestination,
  createTrackingService,
  SUPER_CLICKS,
  SUPER_IMPRESSIONS,
} from './service.ts';
export type { IngestItem, IngestOutcome, TrackingService } from './service.ts';
export type { StoredFeedItem, TargetState } from './repository.ts';
export { applyTransitions, TRANSITIONS_JOB } from './transitions.ts';
export { seedDemoEngagement } from './demo.ts';
export { adUrls, EMAIL_AD_SIZE, NEUTRAL_SEGMENT, neutralAdUrls } from './ad-urls.ts';
export { neutralAd } from './neutral-png.ts';

/** The webhook event of each engagement feed item. */
const WEBHOOK_EVENT_OF: Record<StoredFeedItem['type'], WebhookEventType> = {
  super: 'superprospect',
  click: 'click',
  view: 'landing_page_view',
};

declare module 'fastify' {
  // Module augmentation needs an interface.
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  interface FastifyInstance {
    tracking: TrackingService;
  }
}

/**
 * Creates the tracking service on the root instance (so the landing pages can count views through
 * `app.tracking.recordView`) and registers the transition job; call before the queue starts. New
 * feed items go to the feed module's bus when there is one.
 */
export function setupTracking(app: FastifyInstance): void {
  const tracking = createTrackingService({
    database: app.database,
    log: app.log,
    burstMs: app.config.trackingBurstMs,
    viewWaitMs: app.config.trackingLandingViewMs,
    suppressionKey: app.suppressions.key,
    // Looked up at publish time: the feed module may decorate the app after this runs.
    publish: (clientId, item) => {
      if (app.hasDecorator('feedBus')) app.feedBus.publish(clientId, item);
      // A new superprospect: its rep's e-mail, when asked for (SDR notifications; through the outbox).
      if (item.type === 'super' && app.hasDecorator('sdrNotifications')) {
        app.sdrNotifications
          .onSuper(clientId, item)
          .catch((err: unknown) => app.log.warn({ err }, 'superprospect e-mail not queued'));
      }
      // Not awaited: the reply to the tag never waits for webhooks. The emitter answers from a
      // short cache when the client has no endpoint for the event, so the ingest path stays cheap.
      if (app.hasDecorator('webhooks')) {
        void app.webhooks.emit(
          clientId,
          WEBHOOK_EVENT_OF[item.type],
          engagementData(item),
          new Date(item.created_at),
        );
      }
    },
  });
  app.decorate('tracking', tracking);
  registerTransitions({ db: app.db, queue: app.queue, log: app.log });
}

/** Counts a landing page view of the target with this token (for the landing page renderer). */
export function recordView(app: FastifyInstance, token: string): Promise<IngestOutcome> {
  return app.tracking.recordView(token);
}

/**
 * The ad and click tags at the root, and the engine's upkeep: monthly event partitions at start and
 * daily, the transition job every minute, the ingest queue's consumer, queued events written and
 * folded before the database closes.
 */
export const trackingPlugin: FastifyPluginAsync<{ workers?: boolean }> = async (app, opts) => {
  await app.register(trackingTagRoutes);
  let stopTransitions: (() => void) | undefined;
  let partitions: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    await app.tracking.ensurePartitions();
    // Before the first request: what a crashed process answered but did not fold is counted first.
    await app.tracking.start();
    partitions = setInterval(() => {
      app.tracking.ensurePartitions().catch((err: unknown) => app.log.warn({ err }, 'event partitions'));
    }, 86_400_000);
    partitions.unref();
    if (opts.workers !== false) stopTransitions = scheduleTransitions(app.queue, app.log);
  });
  app.addHook('onClose', async () => {
    stopTransitions?.();
    clearInterval(partitions);
    await app.tracking.drain();
  });
};
