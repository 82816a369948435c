import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { createSecretBox } from '../../lib/crypto.ts';
import type { AdFieldsPort } from '../integrations/index.ts';
import { adFieldsRoutes } from './routes.ts';
import { createAdFieldsService } from './service.ts';
import type { AdFieldsService } from './service.ts';
import { createAdFieldsWriter } from './writer.ts';
import type { AdFieldsWriter } from './writer.ts';

export { neutralTagRoutes } from './neutral-routes.ts';
export { AD_FIELDS_JOB, writeSignature } from './writer.ts';
export type { AdFieldsWriter } from './writer.ts';

declare module 'fastify' {
  // Module augmentation needs an interface.
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  interface FastifyInstance {
    adFields: AdFieldsService & { writer: AdFieldsWriter };
  }
}

/**
 * Creates the ad-fields service and registers its write job (issue 38); call after the sequence and
 * CRM syncs exist (their adapters carry the vendors' ad-field parts) and before the queue starts.
 */
export function setupAdFields(app: FastifyInstance): void {
  const ports = (source: string): AdFieldsPort | undefined =>
    (app.integrationSync.adapters as Record<string, { adFields?: AdFieldsPort } | undefined>)[source]
      ?.adFields ??
    (app.crmSync.adapters as Record<string, { adFields?: AdFieldsPort } | undefined>)[source]?.adFields;
  const box = createSecretBox(app.config.appSecret);
  const writer = createAdFieldsWriter({
    db: app.db,
    queue: app.queue,
    box,
    ports,
    publicUrl: app.config.publicUrl,
    log: app.log,
    heartbeatSeconds: app.config.jobHeartbeatSeconds,
  });
  writer.register();
  const service = createAdFieldsService({ db: app.db, box, ports, publicUrl: app.config.publicUrl, writer });
  app.decorate('adFields', Object.assign(service, { writer }));
}

/** The ad-fields calls under /v1. */
export const adFieldsApiRoutes: FastifyPluginAsync = async (app) => {
  await app.register(adFieldsRoutes);
};
