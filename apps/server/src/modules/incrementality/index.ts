export { incrementalityRoutes } from './routes.ts';
