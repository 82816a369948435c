export { scimRoutes, SCIM_PREFIX } from './routes.ts';
export { scimTokenRoutes, SCIM_OWNER_ONLY } from './token-routes.ts';
