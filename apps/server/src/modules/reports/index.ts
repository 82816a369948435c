export { reportRoutes } from './routes.ts';
export { scReportRoutes } from './sc-routes.ts';
export { reportInsightRoutes } from './insight-routes.ts';
export { reportNetworkRoutes } from './network-routes.ts';
export { salesPriorityRoutes } from './priority-routes.ts';
export { setupReports } from './jobs.ts';
export { summary } from './service.ts';
export { superprospectSpend } from './repository.ts';
