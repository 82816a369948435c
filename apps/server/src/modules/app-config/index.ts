export { ANALYTICS_PROXY_PATH, appConfigRoutes } from './routes.ts';
