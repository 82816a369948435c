import { AD_SIZES } from '@rally/shared/schemas/content';
import type {
  Assignee,
  Colors,
  ContentItem,
  LandingPage,
  LandingPagePayload,
  LandingPagePayloadInput,
} from '@rally/shared/schemas/content';
import { escapeHtml, fillTagsHtml, fillTagsText, unescapeHtml, uuidToBase58 } from '@rally/shared';
import type { content, landingPages } from '../../db/schema/index.ts';
import { sanitizeRichHtml } from './sanitize.ts';

// SPEC.md §5: "Content text fields are escaped (HTML entities) when sent and unescaped when read."
// The API speaks plain text; the database holds the escaped form, so a renderer that forgets to
// escape still prints entities, never markup. HTML fields are sanitised instead.

type ContentRow = typeof content.$inferSelect;
type LandingPageRow = typeof landingPages.$inferSelect;

const esc = (v: string) => escapeHtml(v);
const unesc = (v: string) => unescapeHtml(v);

/** `#`-prefixed, lower-case colours, so renderers can put them straight into CSS. */
export function normaliseColors(colors: {
  background: string;
  text: string;
  accent: string;
  primary?: string | null;
}): Colors {
  const hex = (v: string) => (v.startsWith('#') ? v : `#${v}`).toLowerCase();
  return {
    background: hex(colors.background),
    text: hex(colors.text),
    accent: hex(colors.accent),
    ...(colors.primary ? { primary: hex(colors.primary) } : {}),
  };
}

export function assigneeToStored(a: Assignee | null | undefined): Assignee | null {
  if (!a) return null;
  return {
    first_name: esc(a.first_name),
    last_name: esc(a.last_name),
    title: esc(a.title),
    company_name: esc(a.company_name),
    website: a.website,
    calendar_url: a.calendar_url,
  };
}

function assigneeFromStored(a: Assignee | null | undefined): Assignee | null {
  if (!a) return null;
  return {
    first_name: unesc(a.first_name ?? ''),
    last_name: unesc(a.last_name ?? ''),
    title: unesc(a.title ?? ''),
    company_name: unesc(a.company_name ?? ''),
    website: a.website ?? '',
    calendar_url: a.calendar_url ?? '',
  };
}

/** The payload as stored: HTML sanitised, the button name escaped. */
export function payloadToStored(p: LandingPagePayloadInput | LandingPagePayload): LandingPagePayload {
  return {
    content_html: sanitizeRichHtml(p.content_html ?? ''),
    footer_html: sanitizeRichHtml(p.footer_html ?? ''),
    hero_html: sanitizeRichHtml(p.hero_html ?? ''),
    hero_img: p.hero_img ?? '',
    landing_trigger_field: p.landing_trigger_field ?? null,
    landing_trigger_type: p.landing_trigger_type ?? null,
    landing_button_name: p.landing_button_name == null ? null : esc(p.landing_button_name),
  };
}

function payloadFromStored(p: LandingPagePayload): LandingPagePayload {
  return {
    content_html: p.content_html ?? '',
    footer_html: p.footer_html ?? '',
    hero_html: p.hero_html ?? '',
    hero_img: p.hero_img ?? '',
    landing_trigger_field: p.landing_trigger_field ?? null,
    landing_trigger_type: p.landing_trigger_type ?? null,
    landing_button_name: p.landing_button_name == null ? null : unesc(p.landing_button_name),
  };
}

export const escapeText = esc;

/** A content row as the API replies it (plain text, SPEC.md §3 "Content item"). */
export function toContentItem(row: ContentRow): ContentItem {
  const short = uuidToBase58(row.id);
  return {
    id: row.id,
    client_id: row.clientId,
    name: row.name === null ? null : unesc(row.name),
    status: row.status,
    is_archived: row.isArchived,
    template_id: row.templateId,
    title: unesc(row.title),
    image_text: unesc(row.imageText),
    primary_text: unesc(row.primaryText),
    sdr_img_url: row.sdrImgUrl,
    colors: normaliseColors(row.colors),
    assignee: assigneeFromStored(row.assignee),
    landing_page_payload: payloadFromStored(row.landingPagePayload),
    landing_page_url: row.landingPageUrl,
    landing_page_id: row.landingPageId,
    preview_paths: Object.fromEntries(AD_SIZES.map((s) => [s, `/content/preview/${short}/${s}`])),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt?.toISOString() ?? null,
  };
}

/** A landing page row as the API replies it (SPEC.md §3 "Landing page"). */
export function toLandingPage(row: LandingPageRow): LandingPage {
  return {
    id: row.id,
    client_id: row.clientId,
    name: unesc(row.name),
    landing_page_payload: payloadFromStored(row.landingPagePayload),
    sdr_img_url: row.sdrImgUrl,
    logo_url: row.logoUrl,
    favicon_url: row.faviconUrl,
    colors: normaliseColors(row.colors),
    assignee: assigneeFromStored(row.assignee),
    is_archived: row.isArchived,
    public_path: `/lp/${uuidToBase58(row.id)}`,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

// ---------------------------------------------------------------------------------------------
// Personalisation (SPEC.md §5; a tag without a value renders its fallback, docs/personalisation-tags.md)

/**
 * Plain text with its data-id tags replaced by plain values, or by each tag's fallback when there
 * is no value (nothing escaped or unescaped).
 */
export function personaliseText(text: string, values: Readonly<Record<string, string>>): string {
  return fillTagsText(text, values);
}

/** HTML with its data-id tags replaced by escaped values or fallbacks (the result stays safe HTML). */
export function personaliseHtml(html: string, values: Readonly<Record<string, string>>): string {
  return fillTagsHtml(html, values);
}

/** A content item's texts and landing HTML filled in for one reader. */
export function personaliseContent(
  item: Pick<ContentItem, 'title' | 'image_text' | 'primary_text' | 'landing_page_payload'>,
  values: Readonly<Record<string, string>>,
) {
  const p = item.landing_page_payload;
  return {
    title: personaliseText(item.title, values),
    image_text: personaliseText(item.image_text, values),
    primary_text: personaliseText(item.primary_text, values),
    landing_page_payload: {
      ...p,
      content_html: personaliseHtml(p.content_html, values),
      footer_html: personaliseHtml(p.footer_html, values),
      hero_html: personaliseHtml(p.hero_html, values),
      landing_button_name:
        p.landing_button_name == null
          ? p.landing_button_name
          : personaliseText(p.landing_button_name, values),
    },
  };
}
