import { escapeHtml, findDataTags, replaceDataIdTags } from './escape.ts';
import type { DataTag } from './escape.ts';

// Personalisation tags (docs/personalisation-tags.md). A tag is written
// `<span data-id="prospect_first_name" data-fallback="there">Prospect first name</span>`: every render
// uses the value when there is one, else the fallback. The element's own text is a label for editors
// only and is never rendered.

/**
 * The tags a content text may hold, where their values come from (the assignee, i.e. the rep, or
 * the prospect), and the fallback a stored tag written before fallbacks existed renders with.
 */
export const PERSONALISATION_TAGS = [
  { id: 'first_name', label: 'Rep first name', source: 'assignee', fallback: 'our team' },
  { id: 'last_name', label: 'Rep last name', source: 'assignee', fallback: '' },
  { id: 'title', label: 'Rep title', source: 'assignee', fallback: '' },
  { id: 'company_name', label: 'Rep company', source: 'assignee', fallback: 'us' },
  { id: 'website', label: 'Rep website', source: 'assignee', fallback: '' },
  { id: 'calendar_url', label: 'Rep calendar URL', source: 'assignee', fallback: '' },
  { id: 'prospect_first_name', label: 'Prospect first name', source: 'prospect', fallback: 'there' },
  { id: 'prospect_last_name', label: 'Prospect last name', source: 'prospect', fallback: '' },
  { id: 'prospect_title', label: 'Prospect title', source: 'prospect', fallback: '' },
  {
    id: 'prospect_company_name',
    label: 'Prospect company',
    source: 'prospect',
    fallback: 'your company',
  },
] as const;
export type PersonalisationTagId = (typeof PERSONALISATION_TAGS)[number]['id'];

const BY_ID = new Map<string, (typeof PERSONALISATION_TAGS)[number]>(
  PERSONALISATION_TAGS.map((t) => [t.id, t]),
);

/** The error a text gets when one of its tags has no fallback (the API's 422 and the editor say it). */
export const TAG_FALLBACK_ERROR =
  'each personalisation tag needs a fallback, the words shown when there is no value (e.g. {{Prospect first name | there}})';

/** A tag's label for people ("Prospect first name"); the id itself when it is not a known tag. */
export const tagLabel = (id: string) => BY_ID.get(id)?.label ?? id;

/** What a tag renders as when there is no value: its own fallback, else the tag's default. */
export function tagFallback(tag: DataTag): string {
  if (tag.fallback !== null && tag.fallback.trim() !== '') return tag.fallback;
  return BY_ID.get(tag.id)?.fallback ?? '';
}

/** The stored form of a tag: its id, its fallback (HTML-escaped) and its label. */
export function tagMarkup(id: string, fallback: string | null): string {
  const fb = fallback === null ? '' : ` data-fallback="${escapeHtml(fallback)}"`;
  return `<span data-id="${escapeHtml(id)}"${fb}>${escapeHtml(tagLabel(id))}</span>`;
}

/** The ids of the tags in `text` that carry no fallback (or a blank one), in order. */
export function tagsWithoutFallback(text: string): string[] {
  return findDataTags(text)
    .filter((t) => t.fallback === null || t.fallback.trim() === '')
    .map((t) => t.id);
}

function valueOf(
  values: Readonly<Record<string, string>>,
  tag: DataTag,
): { text: string; isFallback: boolean } {
  // hasOwn, so ids such as "constructor" are not read from the prototype
  const value = Object.hasOwn(values, tag.id) ? (values[tag.id] ?? '').trim() : '';
  return value ? { text: value, isFallback: false } : { text: tagFallback(tag), isFallback: true };
}

/**
 * Plain text with each tag replaced by its value, else its fallback (nothing escaped or
 * unescaped). Used by every render: ads, previews, e-mails, the campaign files.
 */
export function fillTagsText(text: string, values: Readonly<Record<string, string>>): string {
  if (!text.includes('<')) return text;
  // Tags become NUL-delimited markers, then the markers the plain values: replaceDataIdTags escapes
  // what it inserts, which suits HTML but not plain text. Stored texts hold no NUL (the schemas
  // refuse it), so a marker cannot be forged.
  const filled: { text: string; isFallback: boolean }[] = [];
  const marked = replaceDataIdTags(text, (tag) => {
    const value = valueOf(values, tag);
    filled.push({ text: value.text, isFallback: value.isFallback });
    return `\u0000${filled.length - 1}\u0000`;
  });
  // eslint-disable-next-line no-control-regex
  return marked.replace(/\u0000(\d+)\u0000/g, (_m, i: string, offset: number) => {
    const fill = filled[Number(i)];
    if (!fill) return '';
    // A fallback that opens the text opens a sentence: "there, …" reads "There, …".
    return fill.isFallback && offset === 0 ? capitalise(fill.text) : fill.text;
  });
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** HTML with each tag replaced by its escaped value, else its fallback (the result stays safe). */
export function fillTagsHtml(html: string, values: Readonly<Record<string, string>>): string {
  return replaceDataIdTags(html, (tag) => valueOf(values, tag).text);
}

// ---------------------------------------------------------------------------------------------
// The editor's words for tags: `{{Prospect first name | there}}` in a text input, never markup.

const TOKEN = /\{\{([^{}|]*?)(?:\|([^{}]*?))?\}\}/g;
const BARE_ID = /^[a-z][a-z0-9_]*$/;

function idOfName(name: string): string | null {
  const wanted = name.trim().toLowerCase();
  const known = PERSONALISATION_TAGS.find((t) => t.label.toLowerCase() === wanted || t.id === wanted);
  if (known) return known.id;
  return BARE_ID.test(wanted) ? wanted : null;
}

/** A tag as the editor shows it: `{{Label | fallback}}` (a tag without one shows the default). */
export const tagToken = (id: string, fallback: string) => `{{${tagLabel(id)} | ${fallback}}}`;

/** Stored text → the editor's text: each tag becomes `{{Label | fallback}}`. */
export function tagsToTokens(text: string): string {
  if (!text.includes('<')) return text;
  const tokens: string[] = [];
  const marked = replaceDataIdTags(text, (tag) => {
    tokens.push(tagToken(tag.id, tagFallback(tag)));
    return `\u0000${tokens.length - 1}\u0000`;
  });
  // eslint-disable-next-line no-control-regex
  return marked.replace(/\u0000(\d+)\u0000/g, (_m, i: string) => tokens[Number(i)] ?? '');
}

/**
 * The editor's text → stored text: each `{{Label | fallback}}` naming a tag becomes its markup;
 * `{{Label}}` becomes a tag without a fallback, which the schemas refuse. Other braces stay text.
 */
export function tokensToTags(text: string): string {
  return text.replace(TOKEN, (token, name: string, fallback: string | undefined) => {
    const id = idOfName(name);
    if (id === null) return token;
    return tagMarkup(id, fallback === undefined ? null : fallback.trim());
  });
}
