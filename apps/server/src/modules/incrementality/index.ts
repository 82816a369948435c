export { setupLift } from './jobs.ts';
export { incrementalityRoutes } from './routes.ts';
