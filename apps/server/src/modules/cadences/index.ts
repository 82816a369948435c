export { cadenceRoutes } from './routes.ts';
