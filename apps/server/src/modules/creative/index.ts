export { publicPageRoutes } from './routes.ts';
export {
  adImageFor,
  adInputFor,
  creativeOf,
  forgetLandingPage,
  landingPage,
  networkAdCopy,
  PAGE_CACHE_MS,
  personalisationValues,
} from './service.ts';
export type { AdImageRequest, AdTarget, Creative, RenderedPage } from './service.ts';
export { createAdRenderer, adCacheKey, adCacheDir } from './ad-renderer.ts';
export type { AdRenderer, RenderedAd } from './ad-renderer.ts';
export { renderAdPng, renderAdSvg } from './render.ts';
export type { AdInput } from './render.ts';
export { neutralClickHtml, renderLandingPageHtml, PUBLIC_PAGE_CSP } from './landing-page.ts';
export type { LandingPageView } from './landing-page.ts';
export { TEMPLATES, TEMPLATE_VERSION } from './templates.ts';
export { samplePortraitPng, sampleLogoPng } from './sample-images.ts';
