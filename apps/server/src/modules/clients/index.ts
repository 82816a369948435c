export { clientRoutes } from './routes.ts';
