export { emailAdRoutes } from './routes.ts';
