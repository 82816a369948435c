export { FLOW_COOKIE, oauthRoutes } from './routes.ts';
export { ssoSettingsRoutes } from './sso-settings-routes.ts';
