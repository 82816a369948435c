export { crmRestRoutes } from './routes.ts';
export { seedDemoCrm, DEMO_STAGES, DEMO_CRM_ACCOUNT_NAME } from './demo.ts';
export { domainOf, emailKey } from './match.ts';
