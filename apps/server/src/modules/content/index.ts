export { contentRoutes, filesRoutes, scContentRoutes } from './routes.ts';
export { sanitizeRichHtml } from './sanitize.ts';
export {
  getContent,
  getLandingPage,
  personalisationValues,
  createContent,
  createLandingPage,
  updateContent,
} from './service.ts';
export type { PersonalisationValues } from './service.ts';
export { getClientSettings, updateClientSettings } from './settings.ts';
export {
  personaliseContent,
  personaliseHtml,
  personaliseText,
  toContentItem,
  toLandingPage,
} from './text.ts';
export { blobStoreOf, filePath, readUpload, saveUpload } from './uploads.ts';
export { seedDemoContent } from './demo.ts';
