// The declarations of app.suppressions and app.adNetworks the routes use.
import type {} from '../suppressions/index.ts';
import type {} from '../ad-networks/index.ts';

export { erasureRoutes, ERASURE_OWNER_ONLY } from './routes.ts';
export { erase, erasedTest, listErasures } from './service.ts';
