export { embeddedReportRoutes } from './routes.ts';
