import type satoriFn from 'satori';
import { EMAIL_RENDITION, adRenditionPixels } from '@rally/shared/schemas/content';
import type { AdRendition, Assignee, TemplateId } from '@rally/shared/schemas/content';
import type { AdNode } from './elements.ts';
import { EMAIL_FRAME, EMAIL_TEMPLATES } from './email-templates.ts';
import { adFonts } from './fonts.ts';
import type { ImageInput, ImageLoader } from './images.ts';
import { imageDataUri } from './images.ts';
import type { AdColors } from './palette.ts';
import { adPalette } from './palette.ts';
import type { AdContext } from './templates.ts';
import { TEMPLATES, frameOf } from './templates.ts';

/** What an ad shows. Texts are plain (already unescaped and personalised). */
export type AdInput = {
  templateId: TemplateId;
  /** One of the four sizes, or the e-mail rendition (decision 0020). */
  size: AdRendition;
  /** The ad's main line (SPEC.md §3 "Ad creative" image_text). */
  imageText: string;
  /** The content's title, shown as a kicker above the main line (or as the main line without one). */
  title?: string;
  colors: AdColors;
  /** The rep the ad speaks for (SPEC.md §3 "Assignee"). */
  assignee?: Partial<Assignee> | null;
  repPhoto?: ImageInput;
  logo?: ImageInput;
  /** The call to action; "Book a meeting" when not given. */
  cta?: string;
};

export const DEFAULT_CTA = 'Book a meeting';

export type RenderOptions = { loadImage?: ImageLoader };

async function pictureOf(input: ImageInput, loadImage: ImageLoader | undefined): Promise<string | null> {
  if (!input) return null;
  const bytes =
    typeof input === 'string' ? await (loadImage ? loadImage(input) : Promise.resolve(null)) : input;
  return bytes ? imageDataUri(bytes) : null;
}

function displayUrl(url: string): string {
  return url
    .trim()
    .replace(/^https?:\/\//i, '')
    .replace(/\/+$/, '');
}

const clean = (v: string | null | undefined) => (v ?? '').replace(/\s+/g, ' ').trim();

/** Everything the templates need, with the pictures loaded as data URIs. */
export async function adContext(input: AdInput, opts: RenderOptions = {}): Promise<AdContext> {
  const a = input.assignee ?? {};
  const first = clean(a.first_name);
  const last = clean(a.last_name);
  const company = clean(a.company_name);
  const imageText = clean(input.imageText);
  const title = clean(input.title);
  const [photo, logo] = await Promise.all([
    pictureOf(input.repPhoto, opts.loadImage),
    pictureOf(input.logo, opts.loadImage),
  ]);
  const initials = [first, last]
    .map((n) => [...n][0] ?? '')
    .join('')
    .toUpperCase();
  return {
    palette: adPalette(input.colors),
    headline: imageText || title || 'Let’s talk',
    eyebrow: imageText ? title : '',
    name: [first, last].filter(Boolean).join(' '),
    initials: initials || ([...company][0] ?? '').toUpperCase(),
    role: clean(a.title),
    company,
    website: displayUrl(a.website ?? ''),
    cta: clean(input.cta) || DEFAULT_CTA,
    photo,
    logo,
  };
}

/** The layout size of a rendition in CSS pixels: the e-mail one is laid out at half its pixels. */
export function layoutOf(size: AdRendition): { width: number; height: number } {
  return size === EMAIL_RENDITION ? EMAIL_FRAME : frameOf(size);
}

/** The element tree of one ad (what satori lays out). */
export function adElement(ctx: AdContext, templateId: TemplateId, size: AdRendition): AdNode {
  if (size === EMAIL_RENDITION) return EMAIL_TEMPLATES[templateId](ctx, EMAIL_FRAME);
  return TEMPLATES[templateId].build(ctx, frameOf(size));
}

/** The ad as SVG (text drawn as paths in the shipped fonts), at its layout size. */
export async function renderAdSvg(input: AdInput, opts: RenderOptions = {}): Promise<string> {
  const { width, height } = layoutOf(input.size);
  const ctx = await adContext(input, opts);
  const element = adElement(ctx, input.templateId, input.size);
  // satori, resvg and sharp load at the first render, not at start (about 0.35 s and 50 MiB of an
  // idle server that may never render an ad: bench/README.md "Embedded mode").
  const { default: satori } = await import('satori');
  return satori(element as unknown as Parameters<typeof satoriFn>[0], { width, height, fonts: adFonts() });
}

/**
 * The ad as a PNG of exactly its pixels (SPEC.md §3 "Ad sizes"; the e-mail rendition at twice its
 * layout, so its text stays sharp on high-density screens). Pure: no cache; see `AdRenderer` for
 * the cached path that routes use. Rasterising runs off the main thread (resvg's renderAsync).
 */
export async function renderAdPng(input: AdInput, opts: RenderOptions = {}): Promise<Buffer> {
  const svg = await renderAdSvg(input, opts);
  const { width } = adRenditionPixels(input.size);
  const { renderAsync } = await import('@resvg/resvg-js');
  const image = await renderAsync(svg, {
    fitTo: { mode: 'width', value: width },
    font: { loadSystemFonts: false },
    shapeRendering: 2,
    textRendering: 2,
  });
  return palettePng(image.pixels, image.width, image.height);
}

/**
 * Encodes RGBA pixels as an 8-bit palette PNG (libimagequant through sharp, dithered). An ad is flat
 * colour, text and at most one photo: a palette keeps it visually the same at about a third of the
 * bytes of resvg's RGBA PNG (300x250: 12.5 → 4.3 KB), which every prospect downloads and every
 * impression sends. Runs on libuv's pool, off the main thread. Once per cached render.
 */
async function palettePng(rgba: Buffer, width: number, height: number): Promise<Buffer> {
  const { default: sharp } = await import('sharp');
  return sharp(rgba, { raw: { width, height, channels: 4 } })
    .png({ palette: true, quality: 90, effort: 7, compressionLevel: 9 })
    .toBuffer();
}
