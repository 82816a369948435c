export { prospectRoutes } from './routes.ts';
export { listProspects, getProspect, listFingerprint } from './service.ts';
export { encodeCursor } from './cursor.ts';
