// Content studio: ad creatives, landing pages, client (brand) settings, landing domain and uploads.
// SPEC.md §3 ("Colors", "Ad sizes", "Assignee", "Ad creative", "Landing page payload", "Landing page",
// "Content item", "Client settings"), §5 (validation) and §9 (constants).
import { z } from 'zod';
import { pbaCsvSchema } from './campaigns.ts';
import { COHORT_NAME_MAX } from './cohorts.ts';
import { DEFAULT_COLORS, hexColorSchema } from '../utils/colors.ts';
import { TAG_FALLBACK_ERROR, tagsWithoutFallback } from '../utils/personalise.ts';

// ---------------------------------------------------------------------------------------------
// Primitives

export const TEMPLATE_IDS = [1, 2, 3, 4] as const;
export type TemplateId = (typeof TEMPLATE_IDS)[number];
export const TEMPLATE_ID_ERROR = 'must be a whole number from 1 to 4';

/** SPEC.md §5 "template_id: whole number 1 to 4": 0, 5, 2.5 and the string "2" are all refused. */
export const templateIdSchema = z
  .number({ error: TEMPLATE_ID_ERROR })
  .int({ error: TEMPLATE_ID_ERROR })
  .min(1, { error: TEMPLATE_ID_ERROR })
  .max(4, { error: TEMPLATE_ID_ERROR });

/** SPEC.md §3 "Ad sizes" (width x height in pixels). */
export const AD_SIZES = ['1080x1080', '1200x628', '728x90', '300x250'] as const;
export type AdSize = (typeof AD_SIZES)[number];
export const adSizeSchema = z.enum(AD_SIZES, { error: `must be one of ${AD_SIZES.join(', ')}` });

/** Width and height of an ad size. */
export function adSizeDimensions(size: AdSize): { width: number; height: number } {
  const [width = 0, height = 0] = size.split('x').map(Number);
  return { width, height };
}

/**
 * The e-mail rendition of an ad (issue 38, decision 0020): shown 600 × 300 in an e-mail body and
 * drawn at twice that (1200 × 600 pixels) for high-density screens. It is served beside the four
 * sizes at `/t/{token}/ad/email.png`; it is not an ad network size.
 */
export const EMAIL_RENDITION = 'email' as const;
export const EMAIL_AD_DISPLAY = { width: 600, height: 300 } as const;
export const EMAIL_AD_SCALE = 2;

/** Every image an ad tag serves: the four sizes and the e-mail rendition. */
export const AD_RENDITIONS = [...AD_SIZES, EMAIL_RENDITION] as const;
export type AdRendition = (typeof AD_RENDITIONS)[number];

/** Pixel width and height of a rendition's PNG (the e-mail one at twice its display size). */
export function adRenditionPixels(rendition: AdRendition): { width: number; height: number } {
  if (rendition === EMAIL_RENDITION) {
    return {
      width: EMAIL_AD_DISPLAY.width * EMAIL_AD_SCALE,
      height: EMAIL_AD_DISPLAY.height * EMAIL_AD_SCALE,
    };
  }
  return adSizeDimensions(rendition);
}

export const CONTENT_STATUSES = ['draft', 'published'] as const;
export type ContentStatus = (typeof CONTENT_STATUSES)[number];
export const contentStatusSchema = z.enum(CONTENT_STATUSES, { error: 'must be draft or published' });

/** SPEC.md §5: "created_at and updated_at must be ISO datetimes". */
export const isoDatetimeSchema = z.iso.datetime({
  offset: true,
  error: 'must be an ISO 8601 date and time, such as 2025-01-31T09:30:00Z',
});

/** SPEC.md §5: "client_id values must be UUIDs". */
export const uuidSchema = (what = 'an id') => z.uuid({ error: `must be ${what} (a UUID)` });

export const isArchivedSchema = z.boolean({ error: 'must be true or false' });

/** A URL that may be shown as an image or followed: empty, http(s), or one of our /files/{id}. */
export const urlOrEmptySchema = z
  .string({ error: 'must be a URL' })
  .trim()
  .max(2000, { error: 'must be at most 2000 characters' })
  .refine((v) => v === '' || /^https?:\/\/[^\s]+$/i.test(v) || /^\/files\/[0-9a-f-]{36}$/i.test(v), {
    error: 'must be an http(s) URL or an uploaded file (/files/{id})',
  });

/** A page link (website, calendar): empty or http(s). */
export const linkOrEmptySchema = z
  .string({ error: 'must be a URL' })
  .trim()
  .max(2000, { error: 'must be at most 2000 characters' })
  .refine((v) => v === '' || /^https?:\/\/[^\s]+$/i.test(v), { error: 'must be an http(s) URL' });

// NUL cannot be stored in PostgreSQL text or jsonb, so it is refused here rather than failing later.
const text = (max: number) =>
  z
    .string({ error: 'must be text' })
    .max(max, { error: `must be at most ${max} characters` })
    .refine((v) => !v.includes('\u0000'), { error: 'must not contain NUL characters' });

/** Rich text (sanitised on the server before it is stored). */
export const HTML_MAX_LENGTH = 100_000;
const html = () => text(HTML_MAX_LENGTH);

// ---------------------------------------------------------------------------------------------
// Colors and assignee

/** SPEC.md §3 "Colors": background #ffffff, text #000000, accent #000000 by default; primary optional. */
export const colorsSchema = z.object(
  {
    background: hexColorSchema.default(DEFAULT_COLORS.background),
    text: hexColorSchema.default(DEFAULT_COLORS.text),
    accent: hexColorSchema.default(DEFAULT_COLORS.accent),
    primary: hexColorSchema.nullable().optional(),
  },
  { error: 'must be an object of hex colours' },
);
export type ColorsInput = z.input<typeof colorsSchema>;

/** Colours as replied (always with the three defaults filled in). */
export const colorsReplySchema = z.object({
  background: z.string(),
  text: z.string(),
  accent: z.string(),
  primary: z.string().nullable().optional(),
});
export type Colors = z.infer<typeof colorsReplySchema>;

/** SPEC.md §3 "Assignee": all optional strings defaulting to ''. */
export const assigneeSchema = z.object(
  {
    first_name: text(100).default(''),
    last_name: text(100).default(''),
    title: text(200).default(''),
    company_name: text(200).default(''),
    website: linkOrEmptySchema.default(''),
    calendar_url: linkOrEmptySchema.default(''),
  },
  { error: 'must be an object' },
);
export const assigneeReplySchema = z.object({
  first_name: z.string(),
  last_name: z.string(),
  title: z.string(),
  company_name: z.string(),
  website: z.string(),
  calendar_url: z.string(),
});
export type Assignee = z.infer<typeof assigneeReplySchema>;
export const ASSIGNEE_FIELDS = [
  'first_name',
  'last_name',
  'title',
  'company_name',
  'website',
  'calendar_url',
] as const satisfies readonly (keyof Assignee)[];

export const EMPTY_ASSIGNEE: Assignee = {
  first_name: '',
  last_name: '',
  title: '',
  company_name: '',
  website: '',
  calendar_url: '',
};

// Personalisation tags (`<span data-id="…" data-fallback="…">`): docs/personalisation-tags.md.
export { PERSONALISATION_TAGS } from '../utils/personalise.ts';
export type { PersonalisationTagId } from '../utils/personalise.ts';

// ---------------------------------------------------------------------------------------------
// Landing page payload and landing page

/** SPEC.md §3 "Landing page payload". HTML fields are sanitised on the server. */
export const landingPagePayloadSchema = z.object(
  {
    content_html: html().default(''),
    footer_html: html().default(''),
    hero_html: html().default(''),
    hero_img: urlOrEmptySchema.default(''),
    landing_trigger_field: text(100).nullable().optional(),
    landing_trigger_type: text(50).nullable().optional(),
    landing_button_name: text(100).nullable().optional(),
  },
  { error: 'must be an object' },
);
export type LandingPagePayloadInput = z.input<typeof landingPagePayloadSchema>;
export const landingPagePayloadReplySchema = z.object({
  content_html: z.string(),
  footer_html: z.string(),
  hero_html: z.string(),
  hero_img: z.string(),
  landing_trigger_field: z.string().nullable().optional(),
  landing_trigger_type: z.string().nullable().optional(),
  landing_button_name: z.string().nullable().optional(),
});
export type LandingPagePayload = z.infer<typeof landingPagePayloadReplySchema>;
export const LANDING_HTML_FIELDS = ['hero_html', 'content_html', 'footer_html'] as const;

export const EMPTY_LANDING_PAGE_PAYLOAD: LandingPagePayload = {
  content_html: '',
  footer_html: '',
  hero_html: '',
  hero_img: '',
};

/** SPEC.md §3 "Landing page", as replied. `public_path` is /lp/{base58 of id}. */
export const landingPageSchema = z.object({
  id: z.uuid(),
  client_id: z.uuid(),
  name: z.string(),
  landing_page_payload: landingPagePayloadReplySchema,
  sdr_img_url: z.string(),
  logo_url: z.string(),
  favicon_url: z.string(),
  colors: colorsReplySchema,
  assignee: assigneeReplySchema.nullable(),
  is_archived: z.boolean(),
  public_path: z.string(),
  created_at: z.iso.datetime({ offset: true }),
  updated_at: z.iso.datetime({ offset: true }),
});
export type LandingPage = z.infer<typeof landingPageSchema>;

export const landingPageCreateBody = z.object({
  name: text(200).trim().min(1, { error: 'is required' }),
  landing_page_payload: landingPagePayloadSchema.default(EMPTY_LANDING_PAGE_PAYLOAD),
  sdr_img_url: urlOrEmptySchema.default(''),
  /** Left out: the client's brand logo (issue 42 item 14). */
  logo_url: urlOrEmptySchema.optional(),
  favicon_url: urlOrEmptySchema.default(''),
  /** Left out: the client's brand colours (issue 42 item 14: new pages started black and white). */
  colors: colorsSchema.optional(),
  assignee: assigneeSchema.nullable().optional(),
  is_archived: isArchivedSchema.default(false),
});
export type LandingPageCreateBody = z.input<typeof landingPageCreateBody>;

/** Only the given fields change; `updated_at`, when sent, must match (else 409: edited elsewhere). */
export const landingPageUpdateBody = z.object({
  name: text(200).trim().min(1, { error: 'is required' }).optional(),
  landing_page_payload: landingPagePayloadSchema.optional(),
  sdr_img_url: urlOrEmptySchema.optional(),
  logo_url: urlOrEmptySchema.optional(),
  favicon_url: urlOrEmptySchema.optional(),
  colors: colorsSchema.optional(),
  assignee: assigneeSchema.nullable().optional(),
  is_archived: isArchivedSchema.optional(),
  updated_at: isoDatetimeSchema.optional(),
});
export type LandingPageUpdateBody = z.input<typeof landingPageUpdateBody>;

export const landingPageListReply = z.object({ items: z.array(landingPageSchema) });

// ---------------------------------------------------------------------------------------------
// Content item (ad creative + landing page payload)

/**
 * SPEC.md §3 "Content item" and "Ad creative", as replied. Text fields (name, title, image_text,
 * primary_text) are plain text here: the server stores them escaped and unescapes them on read.
 */
export const contentItemSchema = z.object({
  id: z.uuid(),
  client_id: z.uuid(),
  name: z.string().nullable(),
  status: contentStatusSchema,
  is_archived: z.boolean(),
  template_id: z.number().int(),
  title: z.string(),
  image_text: z.string(),
  primary_text: z.string(),
  sdr_img_url: z.string(),
  colors: colorsReplySchema,
  assignee: assigneeReplySchema.nullable(),
  landing_page_payload: landingPagePayloadReplySchema,
  landing_page_url: z.string(),
  landing_page_id: z.uuid().nullable(),
  /** /content/preview/{base58 of id}/{size} for each ad size. */
  preview_paths: z.record(z.string(), z.string()),
  created_at: z.iso.datetime({ offset: true }),
  updated_at: z.iso.datetime({ offset: true }).nullable(),
});
export type ContentItem = z.infer<typeof contentItemSchema>;

/** A text that may hold personalisation tags: each must carry a fallback (issue 42). */
const tagged = (max: number) =>
  text(max).refine((v) => tagsWithoutFallback(v).length === 0, { error: TAG_FALLBACK_ERROR });

const contentFields = {
  name: text(200).trim().nullable(),
  status: contentStatusSchema,
  is_archived: isArchivedSchema,
  template_id: templateIdSchema,
  title: tagged(200),
  image_text: tagged(300),
  primary_text: tagged(2000),
  sdr_img_url: urlOrEmptySchema,
  colors: colorsSchema,
  assignee: assigneeSchema.nullable(),
  landing_page_payload: landingPagePayloadSchema,
  landing_page_url: linkOrEmptySchema,
  landing_page_id: uuidSchema('the id of a landing page').nullable(),
};

/** POST /v1/rest/content. A published item must have what an ad needs (see server 422s). */
export const contentCreateBody = z.object({
  name: contentFields.name.optional(),
  status: contentFields.status.default('draft'),
  is_archived: contentFields.is_archived.default(false),
  template_id: contentFields.template_id.default(1),
  title: contentFields.title.default(''),
  image_text: contentFields.image_text.default(''),
  primary_text: contentFields.primary_text.default(''),
  sdr_img_url: contentFields.sdr_img_url.default(''),
  /** Left out: the client's brand colours (issue 42 item 14: new ads started black and white). */
  colors: contentFields.colors.optional(),
  assignee: contentFields.assignee.optional(),
  landing_page_payload: contentFields.landing_page_payload.default(EMPTY_LANDING_PAGE_PAYLOAD),
  landing_page_url: contentFields.landing_page_url.default(''),
  landing_page_id: contentFields.landing_page_id.optional(),
});
export type ContentCreateBody = z.input<typeof contentCreateBody>;

/**
 * PUT /sc/content/{id} and PATCH /v1/rest/content/{id}: only the given fields change. `updated_at`,
 * when sent, must equal the stored one (else 409), so two editors do not overwrite each other.
 */
export const contentUpdateBody = z.object({
  name: contentFields.name.optional(),
  status: contentFields.status.optional(),
  is_archived: contentFields.is_archived.optional(),
  template_id: contentFields.template_id.optional(),
  title: contentFields.title.optional(),
  image_text: contentFields.image_text.optional(),
  primary_text: contentFields.primary_text.optional(),
  sdr_img_url: contentFields.sdr_img_url.optional(),
  colors: contentFields.colors.optional(),
  assignee: contentFields.assignee.optional(),
  landing_page_payload: contentFields.landing_page_payload.optional(),
  landing_page_url: contentFields.landing_page_url.optional(),
  landing_page_id: contentFields.landing_page_id.optional(),
  updated_at: isoDatetimeSchema.nullable().optional(),
});
export type ContentUpdateBody = z.input<typeof contentUpdateBody>;

/** GET /sc/content and GET /v1/rest/content filters. */
export const contentListQuery = z.object({
  /** Archived items are hidden unless asked for; `only` lists just the archived ones. */
  archived: z.enum(['false', 'true', 'only'], { error: 'must be false, true or only' }).default('false'),
  status: contentStatusSchema.optional(),
  template_id: z.coerce.number({ error: TEMPLATE_ID_ERROR }).pipe(templateIdSchema).optional(),
  search: z.string().trim().max(200).optional(),
});
export const contentListReply = z.object({ items: z.array(contentItemSchema), total: z.number().int() });

/**
 * POST /v1/rest/content/pba, two uses (docs/decisions/0009-campaigns-and-people-based-cohorts.md):
 * with `content_id` (and no `csv`), the content's texts with data-id tags filled in ("personalise by
 * assignee"); with `csv` and `name`, people-based ads: a cohort of the usable people of the list.
 */
export const pbaBody = z
  .object({
    /** The content item (personalised texts); with csv, the content the new cohort's ads show (null: none). */
    content_id: uuidSchema('the id of a content item').nullable().optional(),
    /** Values come from this target's prospect and rep when given. */
    target_id: uuidSchema('the id of a target').optional(),
    /** Override or extra values by data-id (win over the target's and the content's assignee). */
    values: z.record(z.string().max(100), text(1000)).optional(),
    /** People-based: the list of people (CSV text with a header row). */
    csv: pbaCsvSchema.optional(),
    /** People-based: the new cohort's name. */
    name: z
      .string({ error: 'must be text' })
      .trim()
      .min(1, 'is required')
      .max(COHORT_NAME_MAX, `must be at most ${COHORT_NAME_MAX} characters`)
      .optional(),
  })
  .superRefine((b, ctx) => {
    if (b.csv !== undefined) {
      if (b.name === undefined) ctx.addIssue({ code: 'custom', path: ['name'], message: 'is required' });
      for (const key of ['target_id', 'values'] as const) {
        if (b[key] !== undefined) {
          ctx.addIssue({ code: 'custom', path: [key], message: 'is not used with csv' });
        }
      }
    } else if (b.content_id === undefined || b.content_id === null) {
      ctx.addIssue({
        code: 'custom',
        path: ['content_id'],
        message: 'is required (or csv, for people-based ads)',
      });
    }
  });
export const pbaReply = z.object({
  content_id: z.uuid(),
  values: z.record(z.string(), z.string()),
  title: z.string(),
  image_text: z.string(),
  primary_text: z.string(),
  landing_page_payload: landingPagePayloadReplySchema,
});
export type PbaReply = z.infer<typeof pbaReply>;

/**
 * POST /v1/rest/content/parse_pba_data: with `text`, the data-id tags found in it; with `csv` (a
 * list of people), which rows are usable for people-based ads and why not.
 */
export const parsePbaBody = z
  .object({ text: text(HTML_MAX_LENGTH).optional(), csv: pbaCsvSchema.optional() })
  .superRefine((b, ctx) => {
    if (b.text === undefined && b.csv === undefined) {
      ctx.addIssue({ code: 'custom', path: ['csv'], message: 'is required (a list of people), or text' });
    } else if (b.text !== undefined && b.csv !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['text'], message: 'give either text or csv, not both' });
    }
  });
export const parsePbaReply = z.object({
  tags: z.array(
    z.object({
      id: z.string(),
      label: z.string().nullable(),
      source: z.enum(['assignee', 'prospect']).nullable(),
      count: z.number().int(),
    }),
  ),
});

// ---------------------------------------------------------------------------------------------
// Client settings and landing domain

/** SPEC.md §3 "Client settings", as replied. */
export const clientSettingsSchema = z.object({
  client_id: z.uuid(),
  colors: colorsReplySchema,
  facebook_cover_photo: z.string(),
  facebook_name: z.string(),
  facebook_page_url: z.string(),
  facebook_profile_photo: z.string(),
  favicon_url: z.string(),
  website_url: z.string(),
  logo_url: z.string(),
  revenue_report_enabled: z.boolean(),
  /** Days before an opportunity's moment in which an ad engagement counts for it (docs/reports.md). */
  attribution_window_days: z.number().int(),
  landing_button_name: z.string(),
  landing_page_domain: z.string().nullable(),
  landing_trigger_field: z.string(),
  landing_trigger_type: z.string(),
  updated_at: z.iso.datetime({ offset: true }).nullable(),
});
export type ClientSettings = z.infer<typeof clientSettingsSchema>;

/** PUT settings: only the given fields change. The landing domain has its own calls. */
export const clientSettingsUpdateBody = z.object({
  colors: colorsSchema.optional(),
  facebook_cover_photo: urlOrEmptySchema.optional(),
  facebook_name: text(200).trim().optional(),
  facebook_page_url: linkOrEmptySchema.optional(),
  facebook_profile_photo: urlOrEmptySchema.optional(),
  favicon_url: urlOrEmptySchema.optional(),
  website_url: linkOrEmptySchema.optional(),
  logo_url: urlOrEmptySchema.optional(),
  revenue_report_enabled: z.boolean({ error: 'must be true or false' }).optional(),
  attribution_window_days: z
    .number({ error: 'must be a number of days' })
    .int('must be a whole number of days')
    .min(1, 'must be at least 1 day')
    .max(365, 'must be at most 365 days')
    .optional(),
  landing_button_name: text(100).trim().optional(),
  landing_trigger_field: text(100).trim().optional(),
  landing_trigger_type: text(50).trim().optional(),
});
export type ClientSettingsUpdateBody = z.input<typeof clientSettingsUpdateBody>;

const HOSTNAME_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
export const HOSTNAME_ERROR = 'must be a host name such as go.example.com (no scheme, path or port)';

/** A landing domain: a lower-cased DNS host name with at least two labels, not an IP address. */
export const landingDomainSchema = z
  .string({ error: HOSTNAME_ERROR })
  .trim()
  .toLowerCase()
  .transform((v) => (v.endsWith('.') ? v.slice(0, -1) : v))
  .refine(
    (v) => {
      if (v.length === 0 || v.length > 253) return false;
      const labels = v.split('.');
      if (labels.length < 2) return false;
      if (labels.every((l) => /^\d+$/.test(l))) return false;
      if (/^\d+$/.test(labels.at(-1) ?? '')) return false;
      return labels.every((l) => HOSTNAME_LABEL.test(l));
    },
    { error: HOSTNAME_ERROR },
  );

export const landingDomainBody = z.object({ domain: landingDomainSchema });

export const landingDomainReply = z.object({
  domain: z.string().nullable(),
  /** The record to create at the DNS provider: a CNAME from the domain to our host. */
  dns_record: z.object({ type: z.literal('CNAME'), name: z.string(), value: z.string() }).nullable(),
  /**
   * The TXT record that proves the client controls the domain (`_rally.<domain>`, the client's own
   * token, docs/domains.md); required beside the CNAME.
   */
  txt_record: z.object({ type: z.literal('TXT'), name: z.string(), value: z.string() }).nullable(),
  verified: z.boolean(),
  verified_at: z.iso.datetime({ offset: true }).nullable(),
});
export type LandingDomain = z.infer<typeof landingDomainReply>;

export const landingDomainCheckReply = landingDomainReply.extend({
  /** What the domain resolved to (CNAME targets, or addresses), for the message on screen. */
  resolved: z.array(z.string()),
  message: z.string(),
});
export type LandingDomainCheck = z.infer<typeof landingDomainCheckReply>;

// ---------------------------------------------------------------------------------------------
// Uploads

export const UPLOAD_KINDS = ['logo', 'favicon', 'photo', 'hero', 'cover', 'image'] as const;
export type UploadKind = (typeof UPLOAD_KINDS)[number];
export const uploadKindSchema = z.enum(UPLOAD_KINDS, { error: `must be one of ${UPLOAD_KINDS.join(', ')}` });

export const UPLOAD_CONTENT_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export const UPLOAD_MAX_BYTES = 5 * 1024 * 1024;

/** Per kind: the largest width and height accepted, and the smallest (a logo of 2x2 is a mistake). */
export const UPLOAD_DIMENSION_LIMITS: Record<
  UploadKind,
  { minWidth: number; minHeight: number; maxWidth: number; maxHeight: number }
> = {
  logo: { minWidth: 16, minHeight: 16, maxWidth: 4000, maxHeight: 4000 },
  favicon: { minWidth: 16, minHeight: 16, maxWidth: 512, maxHeight: 512 },
  photo: { minWidth: 64, minHeight: 64, maxWidth: 4000, maxHeight: 4000 },
  hero: { minWidth: 200, minHeight: 100, maxWidth: 6000, maxHeight: 6000 },
  cover: { minWidth: 200, minHeight: 100, maxWidth: 6000, maxHeight: 6000 },
  image: { minWidth: 1, minHeight: 1, maxWidth: 6000, maxHeight: 6000 },
};

export const uploadReply = z.object({
  id: z.uuid(),
  kind: uploadKindSchema,
  url: z.string(),
  width: z.number().int(),
  height: z.number().int(),
  content_type: z.string(),
  byte_size: z.number().int(),
});
export type UploadReply = z.infer<typeof uploadReply>;

export const uploadListQuery = z.object({ kind: uploadKindSchema.optional() });
export const uploadListReply = z.object({ items: z.array(uploadReply) });

// ---------------------------------------------------------------------------------------------
// Live preview of unsaved ad fields

/**
 * POST /sc/content/render?size=…: what the ad editor holds before it is saved, rendered as the
 * saved ad would be (same templates, brand logo and call to action).
 */
export const adRenderBody = z.object({
  template_id: contentFields.template_id.default(1),
  // Lenient on fallbacks: a preview of a half-written tag renders its default fallback.
  title: text(200).default(''),
  image_text: text(300).default(''),
  colors: contentFields.colors.default(DEFAULT_COLORS),
  assignee: contentFields.assignee.optional(),
  sdr_img_url: contentFields.sdr_img_url.default(''),
  /** The call to action; the client's landing button name when empty. */
  landing_button_name: text(100).nullable().optional(),
});
export type AdRenderBody = z.input<typeof adRenderBody>;

export const adRenderQuery = z.object({ size: adSizeSchema });
