export { crmRestRoutes } from './routes.ts';
export { crmConnectionRoutes } from './connection-routes.ts';
export { marketoConnectionRoutes } from './marketo-routes.ts';
export { seedDemoCrm, DEMO_STAGES, DEMO_CRM_ACCOUNT_NAME } from './demo.ts';
export { domainOf, emailKey } from './match.ts';
export { createCrmAdapters } from './registry.ts';
export { createCrmSyncService, CRM_SYNC_JOB, isCrmSource } from './sync.ts';
export type { CrmSyncService } from './sync.ts';
export type * from './port.ts';
