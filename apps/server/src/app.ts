import { createServer } from 'node:http';
import { requestIdOf } from './lib/request-id.ts';
import fastifyCompress from '@fastify/compress';
import fastifyCookie from '@fastify/cookie';
import fastifyHttpProxy from '@fastify/http-proxy';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify from 'fastify';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { jsonSchemaTransform, serializerCompiler } from 'fastify-type-provider-zod';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { PRODUCT_NAME } from '@rally/shared';
import type { Config, ServiceName } from './config/env.ts';
import { openDatabase, QUEUE_START_LOCK } from './db/client.ts';
import type { Database, Db } from './db/client.ts';
import { registerErrorHandler } from './lib/errors.ts';
import { storableTextValidatorCompiler } from './lib/request-text.ts';
import { SERVICE_PREFIXES } from './lib/prefixes.ts';
import { JobQueue } from './lib/queue.ts';
import { openRedis } from './lib/redis.ts';
import type { RedisLink } from './lib/redis.ts';
import { ANALYTICS_PROXY_PATH, appConfigRoutes } from './modules/app-config/index.ts';
import { adNetworkApiRoutes, setupAdNetworks } from './modules/ad-networks/index.ts';
import { attentionRoutes } from './modules/attention/index.ts';
import { auditRoutes } from './modules/audit/index.ts';
import { sdrNotificationRoutes, setupSdrNotifications } from './modules/sdr-notifications/index.ts';
import { embeddedReportRoutes } from './modules/embedded-reports/index.ts';
import { authRoutes, registerRoutes } from './modules/auth/index.ts';
import { billerRoutes, scBillingRoutes, setupBilling, stripeWebhookRoutes } from './modules/billing/index.ts';
import { cadenceRoutes } from './modules/cadences/index.ts';
import { cohortApiRoutes, setupCohorts } from './modules/cohorts/index.ts';
import { campaignApiRoutes, setupCampaigns } from './modules/campaigns/index.ts';
import { exportFileApiRoutes, setupExportFiles } from './modules/export-files/index.ts';
import { journeyApiRoutes, setupJourneys } from './modules/journeys/index.ts';
import { emailAdRoutes } from './modules/email-ads/index.ts';
import { prospectRoutes } from './modules/prospects/index.ts';
import { feedRoutes, setupFeed } from './modules/feed/index.ts';
import { clientRoutes } from './modules/clients/index.ts';
import { domainRoutes, setupDomains } from './modules/domains/index.ts';
import { contentRoutes, filesRoutes, scContentRoutes } from './modules/content/index.ts';
import { publicPageRoutes } from './modules/creative/index.ts';
import { scCreativeRoutes } from './modules/creative/preview-routes.ts';
import { fileforceRoutes } from './modules/fileforce/index.ts';
import { setupSuppressions, suppressionRoutes, whyPageRoutes } from './modules/suppressions/index.ts';
import { erasedTest, erasureRoutes } from './modules/erasures/index.ts';
import { hooklyRoutes, setupWebhooks } from './modules/hookly/index.ts';
import { retentionRoutes, setupRetention } from './modules/retention/index.ts';
import {
  createCrmAdapters,
  createCrmSyncService,
  crmConnectionRoutes,
  marketoConnectionRoutes,
  crmRestRoutes,
} from './modules/crm/index.ts';
import type { CrmSyncService } from './modules/crm/index.ts';
import {
  reportInsightRoutes,
  reportNetworkRoutes,
  reportRoutes,
  salesPriorityRoutes,
  scReportRoutes,
  setupReports,
} from './modules/reports/index.ts';
import { adFastLane, setupTracking, trackingApiRoutes, trackingPlugin } from './modules/tracking/index.ts';
import { adFieldsApiRoutes, neutralTagRoutes, setupAdFields } from './modules/ad-fields/index.ts';
import type { FastLane } from './modules/tracking/index.ts';
import { healthRoutes } from './modules/health/routes.ts';
import { userRoutes } from './modules/users/index.ts';
import { SCIM_PREFIX, scimRoutes, scimTokenRoutes } from './modules/scim/index.ts';
import { createMailer } from './modules/mail/mailer.ts';
import { createOutbox } from './modules/mail/outbox.ts';
import { incrementalityRoutes, setupLift } from './modules/incrementality/index.ts';
import { oauthIdentityRoutes, oauthRoutes, ssoSettingsRoutes } from './modules/oauth/index.ts';
import { samlRoutes, samlSettingsRoutes, setupSamlMetadataRefresh } from './modules/saml/index.ts';
import {
  createSequenceAdapters,
  createSyncService,
  integrationRoutes,
  scIntegrationRoutes,
} from './modules/integrations/index.ts';
import type { AdapterOptions, SyncService } from './modules/integrations/index.ts';
import { createSecretBox } from './lib/crypto.ts';
import type { Outbox } from './modules/mail/outbox.ts';
import { loggerOptions } from './lib/log-redact.ts';
import { apiBase } from './plugins/api-base.ts';
import { securityHeaders } from './plugins/security-headers.ts';
import { authPlugin } from './plugins/auth.ts';
import { spaPlugin } from './plugins/spa.ts';

declare module 'fastify' {
  // Module augmentation needs an interface.
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  interface FastifyInstance {
    config: Config;
    database: Database;
    db: Db;
    queue: JobQueue;
    /** The shared Redis (REDIS_URL), or undefined: one instance's memory stands in for it. */
    redis: RedisLink | undefined;
    outbox: Outbox;
    integrationSync: SyncService;
    crmSync: CrmSyncService;
  }
}

export type BuildOptions = {
  /** Run job workers in this process (default true). */
  workers?: boolean;
  /**
   * Start the job workers only when `app.queue.startWorkers()` is called, not at ready: `main.ts`
   * calls it once listening, so their first fetches stay out of the start (the tests, which never
   * listen, keep them at ready).
   */
  deferWorkers?: boolean;
  /** Job polling interval; tests shorten it. */
  jobPollingSeconds?: number;
  /** Start the in-memory embedded database from this dump (tests: skips initdb and migrations). */
  pgliteSnapshot?: Blob;
  /** Vendor adapters' retry policy (tests shorten the waits). */
  adapters?: AdapterOptions;
  /** The billing clock (tests set the date to reach month ends and thresholds). */
  billingClock?: () => Date;
  /** Webhook deliveries' waits before each retry in seconds (default: Standard Webhooks' 3-day schedule; tests shorten it). */
  webhookRetrySchedule?: readonly number[];
  /** Where log lines go (default standard output); tests capture them. */
  logStream?: { write(line: string): void };
};

/** Feature modules of each API base. Later features add themselves here. */
const MODULES: Record<ServiceName, FastifyPluginAsync[]> = {
  main: [
    appConfigRoutes,
    authRoutes,
    registerRoutes,
    oauthRoutes,
    oauthIdentityRoutes,
    ssoSettingsRoutes,
    samlRoutes,
    samlSettingsRoutes,
    scimTokenRoutes,
    userRoutes,
    clientRoutes,
    domainRoutes,
    integrationRoutes,
    fileforceRoutes,
    crmRestRoutes,
    crmConnectionRoutes,
    marketoConnectionRoutes,
    hooklyRoutes,
    reportRoutes,
    reportInsightRoutes,
    reportNetworkRoutes,
    salesPriorityRoutes,
    attentionRoutes,
    sdrNotificationRoutes,
    embeddedReportRoutes,
    contentRoutes,
    trackingApiRoutes,
    cohortApiRoutes,
    campaignApiRoutes,
    exportFileApiRoutes,
    journeyApiRoutes,
    adFieldsApiRoutes,
    emailAdRoutes,
    adNetworkApiRoutes,
    incrementalityRoutes,
    auditRoutes,
    suppressionRoutes,
    erasureRoutes,
    retentionRoutes,
  ],
  sc: [
    scIntegrationRoutes,
    cadenceRoutes,
    scContentRoutes,
    scCreativeRoutes,
    prospectRoutes,
    feedRoutes,
    scBillingRoutes,
    scReportRoutes,
  ],
  biller: [billerRoutes, stripeWebhookRoutes],
};

function trustProxyOption(
  t: Config['trustProxy'],
): false | string[] | ((addr: string, hop: number) => boolean) {
  if (typeof t === 'number') return (_addr, hop) => hop < t;
  return t;
}

/** How stale a CRM's data may get before an incremental sync is queued, and how often that is looked at. */
const CRM_SYNC_EVERY_MS = 30 * 60_000;
const CRM_SYNC_CHECK_MS = 5 * 60_000;

/**
 * Builds the whole server for `npm start` and for the tests (which call it with `app.inject` or on a
 * free port): database and migrations, job queue, the API bases named in `config.services`, and the
 * single-page app.
 */
export async function buildApp(config: Config, opts: BuildOptions = {}): Promise<FastifyInstance> {
  // The ad tag's fast lane, set once the app is ready (tracking/fast-lane.ts).
  let fastLane: FastLane | undefined;
  const app = Fastify({
    // Fastify's own server, with the ad tag's fast lane in front of its handler; the timeouts are
    // Fastify's defaults, which it sets only on servers it makes itself.
    serverFactory: (handler, opts) => {
      const options = (opts ?? {}) as {
        keepAliveTimeout?: number;
        requestTimeout?: number;
        connectionTimeout?: number;
      };
      const server = createServer((req, res) => {
        if (!fastLane?.(req, res)) handler(req, res);
      });
      server.keepAliveTimeout = options.keepAliveTimeout ?? 72_000;
      server.requestTimeout = options.requestTimeout ?? 0;
      server.setTimeout(options.connectionTimeout ?? 0);
      return server;
    },
    logger: loggerOptions(config.logLevel, opts.logStream),
    // Honour a request id from the load balancer, else make one; it is echoed on every response.
    genReqId: requestIdOf,
    // Only configured proxies' X-Forwarded-For is believed (TRUST_PROXY); otherwise a client could
    // write its own address and slip every per-IP limit (issue 37 item 4). Fastify ignores a bare hop
    // count (it fails closed), so the count is a function: the nearest `hops` peers are proxies.
    trustProxy: trustProxyOption(config.trustProxy),
    forceCloseConnections: 'idle',
    // Start-up hooks (the job queue, the outbox sweep) wait on the database; on a loaded two-core
    // machine the embedded one took longer than Fastify's default 10 s once, and the start failed.
    pluginTimeout: 60_000,
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(storableTextValidatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    poolSize: config.databasePoolSize,
    dataDir: config.dataDir,
    pgliteSnapshot: opts.pgliteSnapshot,
    pgliteSharedBuffersMb: config.pgliteSharedBuffersMb,
  });
  const queue = new JobQueue(database.execute, app.log, {
    pollingIntervalSeconds: opts.jobPollingSeconds ?? 1,
    // A job whose heartbeat stopped (its process died) is noticed within a third of the heartbeat.
    superviseIntervalSeconds: Math.max(1, Math.floor(config.jobHeartbeatSeconds / 3)),
    serialiseStart: (fn) => database.withLock(QUEUE_START_LOCK, fn),
  });
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, log: app.log });
  const outbox = createOutbox({ db: database.db, queue, mailer, log: app.log });

  app.decorate('config', config);
  app.decorate('database', database);
  app.decorate('db', database.db);
  app.decorate('queue', queue);
  app.decorate('outbox', outbox);
  const redis = config.redisUrl ? openRedis(config.redisUrl, config.redisPrefix, app.log) : undefined;
  app.decorate('redis', redis);
  setupFeed(app);
  // Before the tracking engine, the syncs and the imports, which all respect the lists.
  setupSuppressions(app);
  // Before the features that emit webhook events (syncs, imports, tracking, billing).
  const webhooks = setupWebhooks(app, {
    workers: opts.workers,
    retryScheduleSeconds: opts.webhookRetrySchedule,
    allowPrivate: config.allowPrivateFetch,
  });
  const integrationSync = createSyncService({
    db: database.db,
    queue,
    box: createSecretBox(config.appSecret),
    adapters: createSequenceAdapters(config.vendors, opts.adapters),
    log: app.log,
    feed: app.feedBus,
    events: webhooks.events,
    afterSync: (id) => app.adFields.writer.afterSync(id),
    holdoutPercent: config.holdoutDefaultPercent,
    suppressions: app.suppressions,
    erasedTest: (clientId, emails) => erasedTest(database.db, app.suppressions.key, clientId, emails),
  });
  integrationSync.register();
  const crmSync = createCrmSyncService({
    db: database.db,
    queue,
    box: createSecretBox(config.appSecret),
    adapters: createCrmAdapters(config.vendors, opts.adapters),
    log: app.log,
    heartbeatSeconds: config.jobHeartbeatSeconds,
    events: webhooks.events,
    afterSync: (id) => app.adFields.writer.afterSync(id),
    suppressions: app.suppressions,
    erasedTest: (tx, clientId, emails) => erasedTest(tx, app.suppressions.key, clientId, emails),
  });
  crmSync.register();
  app.decorate('crmSync', crmSync);
  // CRMs have no webhooks here: connected ones are synced incrementally when their last sync is
  // older than CRM_SYNC_EVERY_MS, looked at every few minutes where job workers run.
  let crmTimer: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    if (opts.workers === false) return;
    crmTimer = setInterval(() => {
      crmSync
        .requestDue(CRM_SYNC_EVERY_MS)
        .catch((err: unknown) => app.log.warn({ err }, 'could not queue CRM syncs'));
    }, CRM_SYNC_CHECK_MS);
    crmTimer.unref();
  });
  app.addHook('onClose', async () => clearInterval(crmTimer));
  setupSdrNotifications(app, { workers: opts.workers });
  setupTracking(app);
  setupJourneys(app, { workers: opts.workers });
  setupCohorts(app);
  setupCampaigns(app);
  setupAdNetworks(app, { adapters: opts.adapters, workers: opts.workers });
  setupExportFiles(app);
  setupReports(app, { workers: opts.workers });
  setupLift(app, { workers: opts.workers });
  app.decorate('integrationSync', integrationSync);
  setupAdFields(app);
  app.decorate('routeAccess', []);

  // Messages stored but never queued (a crash between the two) are swept up at start and every minute.
  let sweep: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    await queue.start({ workers: (opts.workers ?? true) && !opts.deferWorkers });
    const requeued = await outbox.requeuePending();
    if (requeued) app.log.info({ requeued }, 'queued pending e-mails again');
    sweep = setInterval(() => {
      outbox.requeuePending(60_000).catch((err: unknown) => app.log.warn({ err }, 'e-mail sweep failed'));
    }, 60_000);
    sweep.unref();
  });
  // Stop taking jobs, then let go of the mail transport and the database, in that order.
  app.addHook('onClose', async () => {
    clearInterval(sweep);
    await queue.stop();
    mailer.close();
    await redis?.close();
    await database.close();
  });
  // After the queue's start hook: billing asks for its first run once the queue is up.
  setupBilling(app, { now: opts.billingClock, workers: opts.workers });
  setupDomains(app, { workers: opts.workers });
  setupRetention(app, { workers: opts.workers });
  setupSamlMetadataRefresh(app, { workers: opts.workers });

  await app.register(fastifyCookie);
  await app.register(authPlugin);
  // Third-party scripts are allowed only when their add-on is configured (SPEC.md §1).
  const gtm = config.gtmId ? ['https://www.googletagmanager.com'] : [];
  const stripe = config.stripePublishableKey ? ['https://js.stripe.com'] : [];
  // Stripe.js talks to its API and opens 3-D Secure frames from hooks.stripe.com.
  const stripeApi = config.stripePublishableKey ? ['https://api.stripe.com'] : [];
  const stripeFrames = config.stripePublishableKey
    ? ['https://js.stripe.com', 'https://hooks.stripe.com']
    : [];
  await app.register(securityHeaders, {
    options: {
      contentSecurityPolicy: {
        directives: {
          'script-src': ["'self'", ...gtm, ...stripe],
          'frame-src': ["'self'", ...stripeFrames],
          'img-src': ["'self'", 'data:', 'blob:', 'https:'],
          'connect-src': ["'self'", ...stripeApi],
        },
      },
      // Cross-origin isolation headers would block ad images embedded on other sites.
      crossOriginResourcePolicy: { policy: 'cross-origin' },
    },
  });
  await app.register(fastifyCompress, { global: true, encodings: ['gzip', 'deflate'] });

  await app.register(fastifySwagger, {
    openapi: {
      info: {
        title: `${PRODUCT_NAME} API`,
        version: '1',
        description: 'Main (/v1), cadences and content (/sc) and billing (/biller) APIs.',
      },
      servers: [{ url: config.publicUrl }],
    },
    transform: jsonSchemaTransform,
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/v1/docs' });

  await app.register(healthRoutes);
  // Analytics goes through our own origin (SPEC.md §7), outside the API bases: no session, no CSRF.
  if (config.posthog && config.services.includes('main')) {
    await app.register(fastifyHttpProxy, {
      upstream: config.posthog.host,
      prefix: ANALYTICS_PROXY_PATH,
      httpMethods: ['GET', 'POST', 'OPTIONS'],
      replyOptions: {
        // The provider never needs our session cookie or the CSRF token.
        rewriteRequestHeaders: (_request, headers) => {
          const { cookie: _cookie, authorization: _auth, 'x-xsrf-token': _csrf, ...rest } = headers;
          return rest;
        },
      },
    });
  }
  for (const service of config.services) {
    await app.register(apiBase, { prefix: SERVICE_PREFIXES[service], modules: MODULES[service] });
  }
  // Ad and click tags live at the root (/t/...): they are embedded in other sites and e-mails.
  if (config.services.includes('main')) {
    await app.register(neutralTagRoutes);
    await app.register(trackingPlugin, { workers: opts.workers });
    app.addHook('onReady', async () => {
      fastLane = adFastLane(app);
    });
  }
  // SCIM provisioning for identity providers: bearer tokens, outside the session-and-CSRF bases.
  if (config.services.includes('main')) await app.register(scimRoutes, { prefix: SCIM_PREFIX });
  // Uploaded images, public at the root: landing pages on custom domains show them too.
  if (config.services.includes('main')) await app.register(filesRoutes);
  // Server-rendered landing pages and previews; before the app's fallback, which they step aside to.
  if (config.services.includes('main')) await app.register(publicPageRoutes);
  // "Why am I seeing this?" (issue 44): linked from every landing page and the e-mail snippet.
  if (config.services.includes('main')) await app.register(whyPageRoutes);
  if (config.services.includes('main')) await app.register(spaPlugin, { webDist: config.webDist });

  return app;
}
