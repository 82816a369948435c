import {
  AD_RENDITIONS,
  EMAIL_AD_DISPLAY,
  EMAIL_RENDITION,
  adRenditionPixels,
} from '@rally/shared/schemas/content';
import type { AdRendition, Assignee, LandingPagePayload } from '@rally/shared/schemas/content';
import { escapeHtml, fillTagsHtml, pageTitle } from '@rally/shared';
import type { AdColors } from './palette.ts';
import { adPalette, buttonOn, inkOn, mix } from './palette.ts';

/**
 * The public pages' Content-Security-Policy (sent as a header): no script source at all, so no
 * stored markup can run whatever slipped past the sanitiser; inline styles for the page's own
 * stylesheet and the editor's colour and alignment attributes; pictures from us, https or data.
 */
export const PUBLIC_PAGE_CSP = [
  "default-src 'none'",
  "img-src 'self' https: data:",
  "style-src 'unsafe-inline'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join('; ');

export const DEFAULT_BUTTON_NAME = 'Book a meeting';

/** A landing page as it is shown: texts plain, HTML fields as stored (sanitised), not personalised. */
export type LandingPageView = {
  payload: LandingPagePayload;
  colors: AdColors;
  /** The rep the page speaks for: the target's sales rep when personalised, else the page's assignee. */
  assignee: Assignee | null;
  repPhotoUrl: string;
  logoUrl: string;
  faviconUrl: string;
  /** The button's label (payload, then client settings, then the default). */
  buttonName: string;
  /** Where the button goes without a calendar link (the rep's or client's website), or ''. */
  fallbackLink: string;
  /** Values of the data-id tags (SPEC.md §5); a tag with no value shows its fallback. */
  values: Readonly<Record<string, string>>;
  /** Passed over each HTML field before it is shown (the rich-text sanitiser, again). */
  sanitize?: (html: string) => string;
  /** Search engines are asked not to index previews and personalised pages. */
  noindex?: boolean;
  /** The document title; by default the rep's name and company. */
  title?: string;
  /**
   * The "Why am I seeing this?" page (issue 44): the person's own (signed) on a personalised page,
   * the general one otherwise. Absolute, so it works from a custom landing domain.
   */
  whyUrl?: string;
  /** Links send no referrer at all (a visitor's Global Privacy Control). */
  noReferrer?: boolean;
};

const esc = escapeHtml;
const UPLOAD_PATH = /^\/files\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HTTP_URL = /^https?:\/\/[^\s"'<>\\]+$/i;

/** A picture URL we are willing to put in the page: http(s) or one of our uploads; else ''. */
export function safeImageUrl(url: string | null | undefined): string {
  const v = (url ?? '').trim();
  return HTTP_URL.test(v) || UPLOAD_PATH.test(v) ? v : '';
}

/** A link we are willing to follow: http(s) only (never javascript:, data: or a relative path). */
export function safeLink(url: string | null | undefined): string {
  const v = (url ?? '').trim();
  return HTTP_URL.test(v) ? v : '';
}

const FONT_STACK =
  "Inter, ui-sans-serif, system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";

function document(o: {
  title: string;
  head?: string;
  style: string;
  body: string;
  noindex?: boolean;
  noReferrer?: boolean;
}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="${o.noReferrer ? 'no-referrer' : 'strict-origin-when-cross-origin'}">
${o.noindex ? '<meta name="robots" content="noindex, nofollow">\n' : ''}<title>${esc(o.title)}</title>
${o.head ?? ''}<style>${o.style}</style>
</head>
<body>
${o.body}
</body>
</html>
`;
}

/** The rep's initials, else the company's first letter (as on the ads). */
function initialsOf(a: Assignee | null): string {
  const letters = [a?.first_name ?? '', a?.last_name ?? ''].map((n) => [...n.trim()][0] ?? '').join('');
  return (letters || ([...(a?.company_name ?? '').trim()][0] ?? '')).toUpperCase();
}

function arrowSvg(): string {
  return '<svg class="arrow" viewBox="0 0 24 24" aria-hidden="true"><path d="M4 12h15M13 5.5l6.5 6.5-6.5 6.5" fill="none" stroke="currentColor" stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round"/></svg>';
}

/**
 * The hero opens the page with its heading (issue 42 item 14): a hero written without one — the rich
 * text field's first line is a paragraph unless the writer picks a heading — has that first
 * paragraph shown as the page's h1, so it reads as a headline and is the page's heading for screen
 * readers and search engines. A hero with a heading of its own is left as written.
 */
export function heroWithHeading(hero: string): string {
  if (!hero.trim() || /<h[1-6][\s>]/i.test(hero)) return hero;
  const first = /^\s*<p(?:\s[^>]*)?>([\s\S]*?)<\/p>/i.exec(hero);
  if (first) return `<h1>${first[1]}</h1>${hero.slice(first[0].length)}`;
  // Text with no block of its own (no paragraph, list or quote) is the headline as a whole.
  return /<(?:p|ul|ol|blockquote|pre|div|table)[\s>]/i.test(hero) ? hero : `<h1>${hero}</h1>`;
}

/**
 * The landing page as a complete HTML document (no JavaScript): top bar with the logo, hero (hero
 * HTML and picture), the content, the rep's card with the button to their calendar, the footer.
 * Colours follow SPEC.md §9 (text on each colour white or black by brightness) with a WCAG AA
 * contrast floor (`inkOn`, docs/decisions/0011-readable-text-colour.md).
 */
export function renderLandingPageHtml(view: LandingPageView): string {
  const p = adPalette(view.colors);
  const clean = view.sanitize ?? ((html: string) => html);
  const html = (field: string) => fillTagsHtml(clean(field), view.values);
  const a = view.assignee;
  const name = [a?.first_name, a?.last_name]
    .map((v) => (v ?? '').trim())
    .filter(Boolean)
    .join(' ');
  const role = [a?.title, a?.company_name]
    .map((v) => (v ?? '').trim())
    .filter(Boolean)
    .join(' · ');
  const company = (a?.company_name ?? '').trim();
  const link = safeLink(a?.calendar_url) || safeLink(view.fallbackLink);
  const photo = safeImageUrl(view.repPhotoUrl);
  const logo = safeImageUrl(view.logoUrl);
  const favicon = safeImageUrl(view.faviconUrl);
  const heroImg = safeImageUrl(view.payload.hero_img);
  const label = view.buttonName.trim() || DEFAULT_BUTTON_NAME;
  const hero = heroWithHeading(html(view.payload.hero_html)) || (name ? `<h1>Meet ${esc(name)}</h1>` : '');
  const content = html(view.payload.content_html);
  const footer = html(view.payload.footer_html);

  const surface = mix(p.background, p.accent, 0.06);
  const onSurface = {
    title: inkOn(surface, 'title', view.colors.text),
    body: inkOn(surface, 'body', view.colors.text),
  };
  const cta = buttonOn(p.background, p);
  const ctaOnSurface = buttonOn(surface, p);
  const linkColor = inkOn(p.background, 'body', p.accent);

  const button = (cls: string, fill: { fill: string; ink: string }) =>
    link
      ? `<a class="btn ${cls}" style="background:${fill.fill};color:${fill.ink}" href="${esc(link)}" rel="noopener noreferrer">${esc(label)}${arrowSvg()}</a>`
      : '';
  const avatar = photo
    ? `<img class="avatar" src="${esc(photo)}" alt="${esc(name)}" width="96" height="96">`
    : `<div class="avatar avatar-initials" aria-hidden="true">${esc(initialsOf(a))}</div>`;
  const repCard =
    name || photo || link
      ? `<aside class="rep-card" aria-label="Your contact">
  ${avatar}
  <div class="rep-text">
    ${name ? `<p class="rep-name">${esc(name)}</p>` : ''}
    ${role ? `<p class="rep-role">${esc(role)}</p>` : ''}
  </div>
  ${button('btn-block', cta)}
</aside>`
      : '';
  const brand = logo
    ? `<img class="logo" src="${esc(logo)}" alt="${esc(company || 'Logo')}" height="40">`
    : company
      ? `<span class="brand">${esc(company)}</span>`
      : '<span></span>';
  const title = view.title ?? (name && company ? `${name} · ${company}` : name || company || 'Welcome');

  const style = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:${p.background};color:${p.onBackground.body};font:17px/1.6 ${FONT_STACK};-webkit-font-smoothing:antialiased}
img{max-width:100%;height:auto}
a{color:${linkColor}}
.wrap{width:100%;max-width:1120px;margin:0 auto;padding:0 24px}
.topbar{border-top:4px solid ${p.accent}}
.topbar .wrap{display:flex;align-items:center;justify-content:space-between;gap:16px;min-height:76px}
.logo{display:block;max-height:40px;width:auto;max-width:220px}
.brand{font-weight:800;font-size:20px;letter-spacing:-.01em;color:${p.onBackground.title}}
.btn{display:inline-flex;align-items:center;gap:10px;font-weight:700;text-decoration:none;border-radius:999px;padding:12px 22px;font-size:16px;line-height:1.2;white-space:nowrap;transition:filter .15s}
.btn:hover{filter:brightness(1.08)}
.btn:focus-visible{outline:3px solid ${p.accent};outline-offset:3px}
.btn .arrow{width:18px;height:18px;flex:none}
.btn-lg{padding:16px 28px;font-size:18px;margin-top:8px}
.btn-block{display:flex;justify-content:center;width:100%}
.hero{background:${surface};color:${onSurface.body}}
.hero .wrap{display:grid;grid-template-columns:${heroImg ? 'minmax(0,1.1fr) minmax(0,.9fr)' : 'minmax(0,1fr)'};gap:48px;align-items:center;padding-top:64px;padding-bottom:64px}
.hero h1,.hero h2,.hero h3{color:${onSurface.title}}
.hero h1{font-size:clamp(34px,5vw,54px);line-height:1.08;letter-spacing:-.025em;margin:0 0 18px}
.hero p{font-size:19px;margin:0 0 14px}
.hero-media img{display:block;width:100%;border-radius:20px;box-shadow:0 20px 50px rgba(0,0,0,.18)}
.body{display:grid;grid-template-columns:${repCard ? 'minmax(0,1fr) 320px' : 'minmax(0,1fr)'};gap:56px;align-items:start;padding-top:56px;padding-bottom:72px}
.rich h1,.rich h2,.rich h3,.rich h4{color:${p.onBackground.title};line-height:1.2;letter-spacing:-.015em;margin:1.6em 0 .5em}
.rich > :first-child{margin-top:0}
.rich h2{font-size:30px}.rich h3{font-size:23px}
.rich p,.rich ul,.rich ol,.rich blockquote,.rich figure,.rich table{margin:0 0 1.1em}
.rich blockquote{border-left:4px solid ${p.accent};padding:4px 0 4px 18px;margin-left:0;font-style:italic}
.rich img{border-radius:12px}
.rich table{border-collapse:collapse;width:100%}
.rich td,.rich th{border:1px solid ${mix(p.background, p.onBackground.body, 0.15)};padding:8px 10px;text-align:left}
.rich code,.rich pre{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em}
.rich pre{overflow:auto;padding:14px;border-radius:10px;background:${surface}}
.hero .rich h1,.hero .rich h2,.hero .rich h3{color:${onSurface.title}}
.rep-card{position:sticky;top:24px;display:flex;flex-direction:column;align-items:center;gap:16px;text-align:center;padding:28px 24px;border-radius:20px;background:${p.background};border:1px solid ${mix(p.background, p.onBackground.body, 0.12)};box-shadow:0 10px 30px rgba(0,0,0,.08)}
.avatar{width:96px;height:96px;border-radius:50%;object-fit:cover;border:4px solid ${p.accent};flex:none}
.avatar-initials{display:flex;align-items:center;justify-content:center;background:${p.accent};color:${p.onAccent.title};font-weight:700;font-size:34px}
.rep-text{display:flex;flex-direction:column;gap:2px;min-width:0;max-width:100%}
.rep-name{margin:0;font-weight:700;font-size:20px;color:${p.onBackground.title};overflow-wrap:anywhere}
.rep-role{margin:0;font-size:15px;overflow-wrap:anywhere}
.site-footer{border-top:1px solid ${mix(p.background, p.onBackground.body, 0.12)};font-size:14px}
.site-footer .wrap{padding-top:28px;padding-bottom:36px}
.site-footer p{margin:0 0 .5em}
.why{margin:0;padding:12px 24px 20px;text-align:center;font-size:13px}
.why a{color:${linkColor}}
@media (max-width:820px){
.hero .wrap,.body{grid-template-columns:minmax(0,1fr);gap:32px}
.hero .wrap{padding-top:40px;padding-bottom:40px}
.rep-card{position:static}
.topbar .btn{display:none}
}`;

  const body = `<div class="topbar"><div class="wrap">${brand}${button('', cta)}</div></div>
<section class="hero"><div class="wrap">
<div class="hero-copy"><div class="rich">${hero}</div>${button('btn-lg', ctaOnSurface)}</div>
${heroImg ? `<div class="hero-media"><img src="${esc(heroImg)}" alt=""></div>` : ''}
</div></section>
<main class="wrap body">
<article class="rich">${content}</article>
${repCard}
</main>
${footer ? `<div class="site-footer" role="contentinfo"><div class="wrap rich">${footer}</div></div>` : ''}
${view.whyUrl ? `<p class="why"><a href="${esc(view.whyUrl)}" rel="nofollow">Why am I seeing this?</a></p>` : ''}`;

  return document({
    title,
    head: favicon ? `<link rel="icon" href="${esc(favicon)}">\n` : '',
    style,
    body,
    noindex: view.noindex,
    noReferrer: view.noReferrer,
  });
}

/** A plain page for an unknown or retired id (status 404). */
export function notFoundHtml(
  title = 'Page not found',
  message = 'This page does not exist or is no longer available.',
): string {
  return document({
    title,
    style: `body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#f8fafc;color:#334155;font:17px/1.6 ${FONT_STACK}}main{max-width:480px;padding:32px;text-align:center}h1{font-size:28px;color:#0f172a;margin:0 0 8px}`,
    body: `<main><h1>Page not found</h1><p>${esc(message)}</p></main>`,
    noindex: true,
  });
}

/**
 * Where an ad's click lands when it has nowhere to go (no landing page, no landing page URL, no
 * client website, no rep calendar): the click's counterpart of the neutral ad image. Status 200,
 * since the click was counted; it names nobody, so any tag can be answered with it.
 */
export function neutralClickHtml(): string {
  return document({
    title: 'Thanks for your interest',
    style: `body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#f8fafc;color:#334155;font:17px/1.6 ${FONT_STACK}}main{max-width:480px;padding:32px;text-align:center}h1{font-size:28px;color:#0f172a;margin:0 0 8px}`,
    body: `<main><h1>Thanks for your interest</h1><p>There is no page for this ad yet. Please check back soon.</p></main>`,
    noindex: true,
  });
}

/**
 * The page a click lands on when its destination is not on a domain the client verified (issue
 * 37.8): it names where the link goes and asks the person to go on, so the tag on our domain is no
 * open redirect. Status 200 (the click was counted); the link sends no referrer.
 */
export function leavingHtml(url: string): string {
  const host = new URL(url).host;
  return document({
    title: `This link goes to ${host}`,
    style: `body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#f8fafc;color:#334155;font:17px/1.6 ${FONT_STACK}}main{box-sizing:border-box;width:100%;max-width:520px;padding:32px 24px;text-align:center}h1{font-size:26px;line-height:1.3;color:#0f172a;margin:0 0 12px;overflow-wrap:anywhere}.url{display:block;margin:0 0 24px;padding:10px 12px;border-radius:8px;background:#e2e8f0;color:#0f172a;font:14px/1.5 ui-monospace,SFMono-Regular,Menlo,monospace;text-align:left;overflow-wrap:anywhere}a.go{display:inline-block;padding:12px 22px;border-radius:8px;background:#1d4ed8;color:#fff;font-weight:600;text-decoration:none;overflow-wrap:anywhere}a.go:focus-visible{outline:3px solid #93c5fd;outline-offset:2px}.note{margin:20px 0 0;font-size:14px;color:#475569}`,
    body: `<main><h1>This link goes to ${esc(host)}</h1><p>You are leaving for an address the sender has not verified as theirs:</p><code class="url">${esc(url)}</code><a class="go" href="${esc(url)}" rel="noreferrer nofollow">Continue to ${esc(host)}</a><p class="note">If you did not expect to go there, close this page.</p></main>`,
    noindex: true,
  });
}

/**
 * The in-app preview of one ad size: the PNG at its real size, with links to the other sizes; the
 * e-mail rendition at the size it is shown in a message (its PNG has twice the pixels).
 */
export function contentPreviewHtml(o: {
  base58: string;
  size: AdRendition;
  name: string;
  status: string;
  templateId: number;
}): string {
  const email = o.size === EMAIL_RENDITION;
  const pixels = adRenditionPixels(o.size);
  const { width, height } = email ? EMAIL_AD_DISPLAY : pixels;
  const tabs = AD_RENDITIONS.map((size) => {
    const current = size === o.size;
    const label = size === EMAIL_RENDITION ? 'E-mail' : size;
    return `<a href="/content/preview/${esc(o.base58)}/${size}"${current ? ' aria-current="page"' : ''}>${label}</a>`;
  }).join('');
  const caption = email
    ? `${width} × ${height} in an e-mail (${pixels.width} × ${pixels.height} px)`
    : `${width} × ${height} px`;
  return document({
    title: pageTitle('Content preview'),
    noindex: true,
    style: `body{margin:0;background:#eef0f4;color:#1f2937;font:15px/1.5 ${FONT_STACK}}
.bar{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:12px;padding:14px 24px;background:#fff;border-bottom:1px solid #e5e7eb}
.meta{display:flex;align-items:center;gap:10px;min-width:0}
.name{font-weight:700;font-size:16px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;max-width:50vw}
.badge{font-size:12px;font-weight:600;text-transform:uppercase;letter-spacing:.06em;padding:2px 8px;border-radius:999px;background:#e5e7eb;color:#374151}
.badge.published{background:#dcfce7;color:#166534}
nav{display:flex;flex-wrap:wrap;gap:4px;background:#f3f4f6;border-radius:10px;padding:4px}
nav a{padding:6px 12px;border-radius:8px;color:#374151;text-decoration:none;font-weight:600;font-size:14px}
nav a[aria-current]{background:#fff;color:#111827;box-shadow:0 1px 2px rgba(0,0,0,.08)}
.stage{display:flex;flex-direction:column;align-items:center;gap:12px;padding:40px 24px}
.stage img{display:block;max-width:100%;height:auto;background:#fff;box-shadow:0 12px 36px rgba(15,23,42,.16)}
.size{color:#4b5563;font-size:13px}`,
    body: `<div class="bar"><div class="meta"><span class="name">${esc(o.name || 'Untitled ad')}</span><span class="badge ${o.status === 'published' ? 'published' : ''}">${esc(o.status)}</span><span class="badge">Template ${o.templateId}</span></div><nav aria-label="Ad sizes">${tabs}</nav></div>
<div class="stage"><img src="/content/preview/${esc(o.base58)}/${o.size}.png" width="${width}" height="${height}" alt="Ad at ${email ? 'e-mail size' : o.size}"><span class="size">${caption}</span></div>`,
  });
}

/** Placeholder content for /lp/preview (SPEC.md §2: the empty layout). */
export const PREVIEW_PAYLOAD: LandingPagePayload = {
  hero_html:
    '<h1>A headline that speaks to your prospect</h1><p>One or two sentences on the outcome you deliver. Edit the hero in the landing page editor.</p>',
  content_html:
    '<h2>Why teams choose us</h2><p>Describe the problem you solve and how. Personalisation tags such as the prospect’s first name are filled in for each visitor.</p><ul><li>A first benefit, in one line</li><li>A second benefit, with a number in it</li><li>A third, about how quickly it starts</li></ul><h3>What happens next</h3><p>Pick a time that suits you; the meeting takes 20 minutes.</p>',
  footer_html: '<p>© Your company. Replace this footer in the editor.</p>',
  hero_img: '',
  landing_button_name: null,
};
