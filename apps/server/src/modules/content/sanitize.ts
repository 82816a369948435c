import { createRequire } from 'node:module';
import type sanitizeHtmlFn from 'sanitize-html';
import type { IOptions } from 'sanitize-html';

// Rich text from the landing page editor (TipTap) is stored only after this pass, so no stored HTML
// can run script on a public page: an allow-list of tags, attributes, URL schemes and styles.

const HEX_OR_RGB = [
  /^#[0-9a-f]{3,8}$/i,
  /^[a-z]{3,20}$/i, // named colours (red, rebeccapurple)
  /^rgba?\(\s*\d{1,3}%?\s*,\s*\d{1,3}%?\s*,\s*\d{1,3}%?\s*(?:,\s*(?:0|1|0?\.\d+)\s*)?\)$/i,
];
const ALIGN = [/^(?:left|right|center|justify)$/i];

// Elements whose contents are dropped with them (not kept as text), script-bearing ones included.
const DROP_WITH_CONTENT = [
  'script',
  'style',
  'textarea',
  'option',
  'noscript',
  'svg',
  'math',
  'template',
  'iframe',
  'object',
  'embed',
  'title',
  'xmp',
  'noembed',
  'noframes',
  'head',
];

const OPTIONS: IOptions = {
  allowedTags: [
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'p',
    'br',
    'hr',
    'blockquote',
    'ul',
    'ol',
    'li',
    'strong',
    'b',
    'em',
    'i',
    'u',
    's',
    'strike',
    'sub',
    'sup',
    'mark',
    'code',
    'pre',
    'a',
    'img',
    'span',
    'div',
    'figure',
    'figcaption',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'target', 'rel'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    ol: ['start'],
    td: ['colspan', 'rowspan'],
    th: ['colspan', 'rowspan'],
    // data-id tags are the personalisation placeholders (SPEC.md §5); TipTap mentions add the rest.
    '*': ['data-id', 'data-fallback', 'data-type', 'data-label', 'class', 'style'],
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowedSchemesAppliedToAttributes: ['href', 'src', 'cite'],
  allowProtocolRelative: false,
  allowedStyles: {
    '*': { color: HEX_OR_RGB, 'background-color': HEX_OR_RGB, 'text-align': ALIGN },
  },
  nonTextTags: DROP_WITH_CONTENT,
  disallowedTagsMode: 'discard',
  transformTags: {
    // A link opening a new tab must not hand the opener to the page it opens.
    a: (tagName, attribs) => {
      const next = { ...attribs };
      if (next.target !== undefined && next.target !== '_blank') delete next.target;
      if (next.target === '_blank') next.rel = 'noopener noreferrer';
      return { tagName, attribs: next };
    },
  },
  // An image whose src was refused (data:, javascript:, relative to elsewhere) is no image.
  exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
};

const require = createRequire(import.meta.url);

// Our own uploads are referenced by a path, which carries no scheme and stays on our origin.
const RELATIVE_ALLOWED = /^\/files\/[0-9a-f-]{36}$/i;

/** The HTML with everything outside the allow-list removed; '' stays ''. */
export function sanitizeRichHtml(html: string): string {
  if (html === '') return '';
  // Required at the first rich text saved, not at start: it and its HTML parser are about 0.1 s and
  // 18 MiB that an idle server does not need (bench/README.md "Embedded mode").
  const sanitizeHtml = require('sanitize-html') as typeof sanitizeHtmlFn;
  return sanitizeHtml(html, {
    ...OPTIONS,
    // Relative URLs other than our /files/{id} are dropped: on a custom landing domain they would
    // point somewhere unexpected.
    transformTags: {
      ...OPTIONS.transformTags,
      img: (tagName, attribs) => {
        const src = attribs.src?.trim() ?? '';
        const absolute = /^https?:\/\//i.test(src);
        const next = { ...attribs };
        if (!absolute && !RELATIVE_ALLOWED.test(src)) delete next.src;
        return { tagName, attribs: next };
      },
    },
  });
}
