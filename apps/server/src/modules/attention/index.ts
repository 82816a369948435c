export { attentionRoutes } from './routes.ts';
export { requiredAttentions } from './service.ts';
export { setupChecklist } from './setup.ts';
