export { samlRoutes } from './routes.ts';
export { samlSettingsRoutes } from './settings-routes.ts';
