export { FLOW_COOKIE, oauthRoutes } from './routes.ts';
export { ssoSettingsRoutes } from './sso-settings-routes.ts';
export { oauthIdentityRoutes } from './identity-routes.ts';
