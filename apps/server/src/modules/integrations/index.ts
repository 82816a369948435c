export { integrationRoutes, scIntegrationRoutes } from './routes.ts';
export { toIntegrationReply } from './reply.ts';
export { createSyncService, SYNC_JOB } from './sync.ts';
export type { SyncService } from './sync.ts';
export { createSequenceAdapters } from './registry.ts';
export type { AdapterOptions } from './registry.ts';
export * as store from './store.ts';
export * from './ad-fields-port.ts';
