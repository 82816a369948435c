import type { FastifyInstance } from 'fastify';
import { createResolver } from '../../lib/dns.ts';
import { recheckLandingDomains } from './landing-recheck.ts';
import { createDomainService } from './service.ts';
import type { DomainService } from './service.ts';

export { domainRoutes } from './routes.ts';
export { coversAddress, emailDomain, endUncoveredSsoSessions, verifiedDomainsOf } from './repository.ts';
export type { DomainService } from './service.ts';
export { recheckLandingDomains } from './landing-recheck.ts';

export const DOMAIN_RECHECK_JOB = 'domains.recheck';
/** How often a re-check is asked for; each run looks only at domains not checked for DOMAIN_RECHECK_HOURS. */
const ASK_EVERY_MS = 10 * 60_000;

declare module 'fastify' {
  // Module augmentation needs an interface.
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  interface FastifyInstance {
    domains: DomainService;
  }
}

/**
 * The domain service and its periodic re-check (a queue job, one at a time whichever instance
 * asks), asked for at start and every ten minutes where job workers run; call before the queue starts.
 */
export function setupDomains(app: FastifyInstance, opts: { workers?: boolean } = {}): void {
  const deps = {
    db: app.db,
    resolver: createResolver(app.config.dnsServers),
    appHost: new URL(app.config.publicUrl).hostname,
    publicUrl: app.config.publicUrl,
    outbox: app.outbox,
    forgetUsers: (ids: string[]) => {
      // The auth plugin registers after the features are set up: look it up when needed.
      if (app.hasDecorator('identity')) for (const id of ids) void app.identity.invalidateUser(id);
    },
    log: app.log,
  };
  const service = createDomainService(deps);
  app.decorate('domains', service);
  app.queue.register(
    DOMAIN_RECHECK_JOB,
    async () => {
      const done = await service.recheckDue(app.config.domainRecheckHours);
      if (done.lost) app.log.info(done, 'domains re-checked; some lost their verification');
      const landing = await recheckLandingDomains(deps, app.config.domainRecheckHours);
      if (landing.lost) app.log.info(landing, 'landing domains re-checked; some lost their verification');
    },
    // One queued or running at a time; a run missed is the next ask's.
    { policy: 'exclusive', retryLimit: 0 },
  );
  let timer: NodeJS.Timeout | undefined;
  const ask = () => {
    app.queue
      .send(DOMAIN_RECHECK_JOB, {})
      .catch((err: unknown) => app.log.warn({ err }, 'could not queue the domain re-check'));
  };
  app.addHook('onReady', async () => {
    if (opts.workers === false) return;
    ask();
    timer = setInterval(ask, ASK_EVERY_MS);
    timer.unref();
  });
  app.addHook('onClose', async () => clearInterval(timer));
}
