import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { LRUCache } from 'lru-cache';
import { DEFAULT_COLORS, pageTitle, unescapeHtml, uuidToBase58 } from '@rally/shared';
import { ASSIGNEE_FIELDS, TEMPLATE_IDS } from '@rally/shared/schemas/content';
import type { AdRendition, Assignee, TemplateId } from '@rally/shared/schemas/content';
import { personaliseText, readUpload, sanitizeRichHtml } from '../content/index.ts';
import type { AdRenderer, RenderedAd } from './ad-renderer.ts';
import { adCacheDir, createAdRenderer } from './ad-renderer.ts';
import { createImageLoader } from './images.ts';
import type { LandingPageView } from './landing-page.ts';
import { whySignerFor } from '../suppressions/why-token.ts';
import { DEFAULT_BUTTON_NAME, PREVIEW_PAYLOAD, renderLandingPageHtml } from './landing-page.ts';
import type { AdInput } from './render.ts';
import type { Brand, ContentRow, TargetPeople } from './repository.ts';
import {
  brandOfClient,
  clientOfLandingDomain,
  contentWithBrand,
  landingPageWithBrand,
  sessionUserId,
  targetPeopleByToken,
} from './repository.ts';
import { IDENTITY_CACHE_TTL_MS } from '../../plugins/auth.ts';
import { CACHES, cacheDepsOf, createSharedCache, forgetShared } from '../../lib/shared-cache.ts';

/** Per app: the ad renderer and its caches, and small caches that keep public pages to one read. */
export type Creative = {
  renderer: AdRenderer;
  /** The rich-text sanitiser, memoised (the same stored HTML is served many times). */
  sanitize(html: string): string;
  /** A client's brand settings, cached briefly (every ad impression needs the logo). */
  brand(clientId: string): Promise<Brand>;
  /** The client whose verified landing domain this host is, or null; cached briefly, misses too. */
  landingDomainClient(host: string): Promise<string | null>;
  forgetLandingDomain(host: string): Promise<void>;
  /** A landing page with its client's brand, cached for PAGE_CACHE_MS (misses too). */
  landingPageData(id: string): Promise<LandingPageData | null>;
  /** Drop a page from the cache at once (after an edit), instead of within PAGE_CACHE_MS. */
  forgetLandingPage(id: string): Promise<void>;
  /** The user of a session token's hash, cached like the auth plugin's sessions (read only). */
  sessionUser(tokenHash: string): Promise<SessionUser | null>;
};

type LandingPageData = NonNullable<Awaited<ReturnType<typeof landingPageWithBrand>>>;
type SessionUser = NonNullable<Awaited<ReturnType<typeof sessionUserId>>>;

/**
 * How long a landing page is served from memory: a public page is read far more often than it is
 * edited, and on the embedded database each read costs milliseconds. An edit shows within this
 * time on every instance (at once on this one with forgetLandingPage).
 */
export const PAGE_CACHE_MS = 2_000;

// Keyed by the app's database handle, which every plugin context shares: keyed by the instance, a
// route plugin (its own encapsulated instance) would get a cache of its own.
const creatives = new WeakMap<object, Creative>();

export function creativeOf(app: FastifyInstance): Creative {
  let creative = creatives.get(app.db);
  if (creative) return creative;
  const loadImage = createImageLoader({
    readUpload: async (id) => (await readUpload(app, id))?.bytes ?? null,
    // Only ALLOW_PRIVATE_FETCH (tests' loopback fakes, local development) lets a picture come from inside.
    allowPrivateNetwork: app.config.allowPrivateFetch,
  });
  const renderer = createAdRenderer({ cacheDir: adCacheDir(app.config.dataDir), loadImage });
  const sanitized = new LRUCache<string, string>({
    maxSize: 8 * 1024 * 1024,
    sizeCalculation: (v, k) => v.length + k.length + 1,
  });
  // Shared caches (lib/shared-cache.ts): a change made on any instance is forgotten on every one.
  // Brands and pages are cosmetic: without Redis on PostgreSQL they are kept 2 s; sessions not at all.
  const deps = cacheDepsOf(app);
  const shared = { scope: app.db, unsharedTtlMs: PAGE_CACHE_MS };
  const brands = createSharedCache<Brand>(deps, {
    name: CACHES.brand,
    max: 10_000,
    ttlMs: 30_000,
    ...shared,
  });
  const domains = createSharedCache<{ clientId: string | null }>(deps, {
    name: CACHES.landingDomain,
    max: 10_000,
    ttlMs: 15_000,
    ...shared,
  });
  // Tagged with the page's client: a brand change reaches its pages too.
  const pages = createSharedCache<{ data: LandingPageData | null }>(deps, {
    name: CACHES.landingPage,
    max: 5_000,
    ttlMs: PAGE_CACHE_MS,
    ...shared,
  });
  // The auth plugin's channel: a sign-out there forgets these too (tagged by user, keyed by hash).
  const sessionUsers = createSharedCache<{ session: SessionUser | null }>(deps, {
    name: CACHES.sessions,
    max: 10_000,
    ttlMs: IDENTITY_CACHE_TTL_MS,
  });
  creative = {
    renderer,
    sanitize(html) {
      if (html === '') return '';
      let clean = sanitized.get(html);
      if (clean === undefined) {
        clean = sanitizeRichHtml(html);
        sanitized.set(html, clean);
      }
      return clean;
    },
    brand: (clientId) => brands.load(clientId, () => brandOfClient(app.db, clientId)),
    async landingDomainClient(host) {
      return (await domains.load(host, async () => ({ clientId: await clientOfLandingDomain(app.db, host) })))
        .clientId;
    },
    forgetLandingDomain: (host) => domains.forget(host),
    async landingPageData(id) {
      const hit = pages.get(id);
      if (hit) return hit.data;
      const t = pages.ticket();
      const data = await landingPageWithBrand(app.db, id);
      t.set(id, { data }, data?.page.clientId);
      return data;
    },
    forgetLandingPage: (id) => pages.forget(id),
    async sessionUser(tokenHash) {
      const hit = sessionUsers.get(tokenHash);
      if (hit) return hit.session;
      const t = sessionUsers.ticket();
      const session = await sessionUserId(app.db, tokenHash);
      t.set(tokenHash, { session }, session?.userId);
      return session;
    },
  };
  creatives.set(app.db, creative);
  return creative;
}

// ---------------------------------------------------------------------------------------------
// Personalisation

/** The people an ad or page is personalised with (TargetState of the engine fits this shape). */
export type AdTarget = {
  rep: TargetPeople['rep'];
  prospect: { firstName: string; lastName: string; title?: string; companyName: string | null };
};

/** Stored assignee fields are escaped (SPEC.md §5); this reads them back as plain text. */
function storedAssignee(stored: Partial<Assignee> | null | undefined): Assignee | null {
  if (!stored) return null;
  return {
    first_name: unescapeHtml(stored.first_name ?? ''),
    last_name: unescapeHtml(stored.last_name ?? ''),
    title: unescapeHtml(stored.title ?? ''),
    company_name: unescapeHtml(stored.company_name ?? ''),
    website: stored.website ?? '',
    calendar_url: stored.calendar_url ?? '',
  };
}

/**
 * The rep an ad or page speaks for: the target's sales rep when there is one (with the client's
 * website), else the assignee stored with the content or page.
 */
export function assigneeFor(
  stored: Partial<Assignee> | null | undefined,
  target: AdTarget | null | undefined,
  brand: Brand,
): Assignee | null {
  const rep = target?.rep;
  if (!rep) return storedAssignee(stored);
  return {
    first_name: rep.firstName,
    last_name: rep.lastName,
    title: rep.title,
    company_name: rep.companyName,
    website: brand.websiteUrl,
    calendar_url: rep.calendarUrl,
  };
}

/**
 * Values of the data-id tags (the ids of PERSONALISATION_TAGS): the rep's fields under their own
 * names, the prospect's as prospect_*. An id with no value is left out, so its tag is emptied.
 */
export function personalisationValues(
  assignee: Assignee | null,
  prospect?: AdTarget['prospect'] | null,
): Record<string, string> {
  const values: Record<string, string> = {};
  const set = (key: string, value: string | null | undefined) => {
    const v = (value ?? '').trim();
    if (v) values[key] = v;
  };
  for (const field of ASSIGNEE_FIELDS) set(field, assignee?.[field]);
  if (prospect) {
    set('prospect_first_name', prospect.firstName);
    set('prospect_last_name', prospect.lastName);
    set('prospect_title', prospect.title);
    set('prospect_company_name', prospect.companyName);
  }
  return values;
}

// ---------------------------------------------------------------------------------------------
// Ads

function templateOf(id: number): TemplateId {
  return (TEMPLATE_IDS as readonly number[]).includes(id) ? (id as TemplateId) : 1;
}

/** What the renderer needs for a content row at one size, personalised for a target if given. */
export function adInputFor(
  row: ContentRow,
  size: AdRendition,
  brand: Brand,
  target?: AdTarget | null,
): AdInput {
  const assignee = assigneeFor(row.assignee, target, brand);
  const values = personalisationValues(assignee, target?.prospect);
  const text = (stored: string) => personaliseText(unescapeHtml(stored), values);
  const buttonName = row.landingPagePayload?.landing_button_name;
  return {
    templateId: templateOf(row.templateId),
    size,
    imageText: text(row.imageText),
    title: text(row.title),
    colors: { ...DEFAULT_COLORS, ...row.colors },
    assignee,
    // A target's rep without a photo shows initials, never the photo of the content's assignee.
    repPhoto: target?.rep ? (target.rep.photoUrl ?? null) : row.sdrImgUrl || null,
    logo: brand.logoUrl || null,
    cta: (buttonName ? text(buttonName) : '') || brand.landingButtonName || undefined,
  };
}

export type AdImageRequest = { size: AdRendition; target?: AdTarget | null } & (
  { contentId: string; content?: undefined } | { content: ContentRow; contentId?: undefined }
);

/**
 * The PNG of a content item's ad at `size`, personalised with the target's rep and prospect when
 * given, from the shared cache (the engine's `/t/{token}/ad/{size}.png` and the content preview
 * serve the same image). Null when there is no such content.
 */
export async function adImageFor(app: FastifyInstance, req: AdImageRequest): Promise<RenderedAd | null> {
  const creative = creativeOf(app);
  let row: ContentRow;
  let brand: Brand;
  if (req.content) {
    row = req.content;
    brand = await creative.brand(row.clientId);
  } else {
    const found = await contentWithBrand(app.db, req.contentId);
    if (!found) return null;
    row = found.content;
    brand = found.brand;
  }
  return creative.renderer.render(adInputFor(row, req.size, brand, req.target));
}

/**
 * What an ad says on a network (decision 0026): the headline and primary text with each
 * personalisation tag's fallback (no prospect: the audience is many people), and where it links —
 * the content's landing page URL, else its Rally landing page, else the client's website; null when
 * there is none. Null when there is no such content.
 */
export async function networkAdCopy(
  app: FastifyInstance,
  contentId: string,
): Promise<{ headline: string; message: string; landingUrl: string | null } | null> {
  const found = await contentWithBrand(app.db, contentId);
  if (!found) return null;
  const { content: row, brand } = found;
  const input = adInputFor(row, '1200x628', brand);
  const values = personalisationValues(assigneeFor(row.assignee, null, brand));
  const candidates = [
    row.landingPageUrl,
    row.landingPageId ? `${app.config.publicUrl}/lp/${uuidToBase58(row.landingPageId)}` : '',
    brand.websiteUrl,
  ];
  const landingUrl = candidates.find((u) => /^https?:\/\/[^\s]+$/i.test(u ?? '')) ?? null;
  return {
    headline: input.title || input.imageText,
    message: personaliseText(unescapeHtml(row.primaryText), values),
    landingUrl,
  };
}

// ---------------------------------------------------------------------------------------------
// Landing pages

export type RenderedPage = {
  html: string;
  /** The HTML encoded once, so a cached page is not re-encoded for every visitor. */
  bytes: Buffer;
  etag: string;
  clientId: string;
  /** The target whose token personalised the page (its view is counted), or null. */
  targetToken: string | null;
};

function etagOf(html: string): string {
  return `"${createHash('sha256').update(html).digest('base64url').slice(0, 32)}"`;
}

/**
 * The public landing page `id`, personalised for the target with `token` when that target belongs
 * to the page's client (a token of another client is ignored). Null when there is no such page, it
 * is archived, or `clientId` is given and the page belongs to another client (custom domains).
 */
export async function landingPage(
  app: FastifyInstance,
  id: string,
  opts: { token?: string | null; clientId?: string; gpc?: boolean } = {},
): Promise<RenderedPage | null> {
  const creative = creativeOf(app);
  const [found, people] = await Promise.all([
    creative.landingPageData(id),
    opts.token ? targetPeopleByToken(app.db, opts.token) : Promise.resolve(null),
  ]);
  if (!found || found.page.isArchived) return null;
  const { page, brand } = found;
  if (opts.clientId && page.clientId !== opts.clientId) return null;
  const target = people && people.clientId === page.clientId ? people : null;
  // The page without a target is the same for every visitor while its data is cached.
  const anonymous = target || opts.gpc ? undefined : anonymousPages.get(found);
  if (anonymous) return anonymous;
  const assignee = assigneeFor(page.assignee, target, brand);
  const payload = page.landingPagePayload;
  const values = personalisationValues(assignee, target?.prospect);
  const storedButton = payload.landing_button_name ? unescapeHtml(payload.landing_button_name) : '';
  const view: LandingPageView = {
    payload,
    colors: { ...DEFAULT_COLORS, ...page.colors },
    assignee,
    repPhotoUrl: target?.rep ? (target.rep.photoUrl ?? '') : page.sdrImgUrl,
    logoUrl: page.logoUrl || brand.logoUrl,
    faviconUrl: page.faviconUrl || brand.faviconUrl,
    buttonName: personaliseText(storedButton, values) || brand.landingButtonName || DEFAULT_BUTTON_NAME,
    fallbackLink: assignee?.website || brand.websiteUrl,
    values,
    sanitize: creative.sanitize,
    noindex: target !== null,
    whyUrl:
      target && opts.token
        ? whySignerFor(app.config.appSecret).link(app.config.publicUrl, opts.token)
        : `${app.config.publicUrl.replace(/\/+$/, '')}/why`,
    noReferrer: opts.gpc === true,
  };
  const html = renderLandingPageHtml(view);
  const rendered = {
    html,
    bytes: Buffer.from(html),
    etag: etagOf(html),
    clientId: page.clientId,
    targetToken: target ? (opts.token ?? null) : null,
  };
  if (!target && !opts.gpc) anonymousPages.set(found, rendered);
  return rendered;
}

/** Call after changing or deleting a landing page, so every instance serves the change at once. */
export function forgetLandingPage(app: FastifyInstance, id: string): Promise<void> {
  return forgetShared(cacheDepsOf(app), app.db, CACHES.landingPage, { key: id });
}

// Keyed by the cached data object: when that expires, the next visitor gets a fresh render.
const anonymousPages = new WeakMap<LandingPageData, RenderedPage>();

/** /lp/preview: the layout with placeholder content, in the client's brand when one is given. */
export async function previewLandingPage(
  app: FastifyInstance,
  clientId: string | null,
): Promise<RenderedPage> {
  const brand = clientId ? await brandOfClient(app.db, clientId) : null;
  const html = renderLandingPageHtml({
    payload: PREVIEW_PAYLOAD,
    colors: { ...DEFAULT_COLORS, ...brand?.colors },
    assignee: {
      first_name: 'Your',
      last_name: 'Rep',
      title: 'Account Executive',
      company_name: 'Your company',
      website: '',
      calendar_url: 'https://example.com/calendar',
    },
    repPhotoUrl: '',
    logoUrl: brand?.logoUrl ?? '',
    faviconUrl: brand?.faviconUrl ?? '',
    buttonName: brand?.landingButtonName || DEFAULT_BUTTON_NAME,
    fallbackLink: '',
    values: {},
    noindex: true,
    title: pageTitle('Landing page preview'),
  });
  return { html, bytes: Buffer.from(html), etag: etagOf(html), clientId: clientId ?? '', targetToken: null };
}
