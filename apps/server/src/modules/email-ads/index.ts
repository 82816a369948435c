export { emailAdRoutes } from './routes.ts';
export { seedDemoEmailAds } from './demo.ts';
