export { attentionRoutes } from './routes.ts';
