export { FLOW_COOKIE, oauthRoutes } from './routes.ts';
