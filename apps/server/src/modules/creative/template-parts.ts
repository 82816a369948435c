import type { AdNode, Child, Style } from './elements.ts';
import { arrow, box, image, line, paragraph } from './elements.ts';
import { AD_FONT_FAMILY } from './fonts.ts';
import type { AdPalette, Ink } from './palette.ts';

/**
 * The pieces every ad layout is built from (templates.ts for the four sizes, email-templates.ts for
 * the e-mail rendition): text fitting, the rep's photo and signature, the call to action, the brand.
 */

/** The canvas a layout fills, in CSS pixels. */
export type Size = { width: number; height: number };

/** Everything a template shows, already personalised and in plain text. */
export type AdContext = {
  palette: AdPalette;
  /** The big line of the ad (image_text, else the title). */
  headline: string;
  /** A short kicker above the headline (the title when image_text is the headline). */
  eyebrow: string;
  name: string;
  initials: string;
  /** The rep's job title. */
  role: string;
  company: string;
  /** The website without its scheme, for display. */
  website: string;
  cta: string;
  /** Data URIs, or null when there is none (initials stand in for a missing photo). */
  photo: string | null;
  logo: string | null;
};

// ---------------------------------------------------------------------------------------------
// Text fitting

/**
 * Lines `text` takes at `size` in a box `width` wide, by a greedy word wrap with an average glyph
 * width. Good enough to pick a font size; `paragraph` clamps whatever the estimate misses.
 */
export function estimateLines(text: string, width: number, charWidth: number): number {
  const perLine = Math.max(1, Math.floor(width / charWidth));
  let lines = 1;
  let used = 0;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    let length = [...word].length;
    if (used > 0 && used + 1 + length <= perLine) {
      used += 1 + length;
      continue;
    }
    if (used > 0) lines += 1;
    while (length > perLine) {
      lines += 1;
      length -= perLine;
    }
    used = length;
  }
  return lines;
}

/** The largest font size from `max` down to `min` at which `text` fits `lines` lines of `width`. */
export function fitFontSize(text: string, width: number, lines: number, max: number, min: number): number {
  const step = Math.max(1, Math.round(max / 30));
  for (let size = max; size > min; size -= step) {
    if (estimateLines(text, width, size * 0.58) <= lines) return size;
  }
  return min;
}

// ---------------------------------------------------------------------------------------------
// Shared pieces

export const font: Style = { fontFamily: AD_FONT_FAMILY };

export function headline(
  ctx: AdContext,
  ink: string,
  o: { width: number; lines: number; max: number; min: number; weight?: number },
): AdNode {
  const size = fitFontSize(ctx.headline, o.width, o.lines, o.max, o.min);
  return paragraph(ctx.headline, o.lines, {
    ...font,
    width: o.width,
    fontSize: size,
    fontWeight: o.weight ?? 800,
    lineHeight: 1.1,
    letterSpacing: size >= 40 ? -size * 0.02 : 0,
    color: ink,
  });
}

export function eyebrow(ctx: AdContext, color: string, size: number, width: number): Child {
  if (!ctx.eyebrow) return null;
  return line(ctx.eyebrow.toUpperCase(), {
    ...font,
    width,
    fontSize: size,
    fontWeight: 700,
    letterSpacing: size * 0.12,
    color,
  });
}

/** The rep's photo in a circle (or rounded square), with a ring; initials when there is no photo. */
export function avatar(
  ctx: AdContext,
  size: number,
  o: { ring?: string; ringWidth?: number; radius?: number; fill?: string; ink?: string } = {},
): AdNode {
  const ringWidth = o.ring ? (o.ringWidth ?? Math.max(2, Math.round(size / 30))) : 0;
  const inner = size - ringWidth * 2;
  const radius = o.radius ?? size / 2;
  const innerRadius = Math.max(0, radius - ringWidth);
  const fill = o.fill ?? ctx.palette.accent;
  const content = ctx.photo
    ? image(ctx.photo, inner, inner, { borderRadius: innerRadius })
    : box(
        {
          width: inner,
          height: inner,
          borderRadius: innerRadius,
          backgroundColor: fill,
          alignItems: 'center',
          justifyContent: 'center',
        },
        box(
          {
            ...font,
            fontSize: Math.round(inner * 0.38),
            fontWeight: 700,
            color: o.ink ?? ctx.palette.onAccent.title,
          },
          ctx.initials,
        ),
      );
  return box(
    {
      width: size,
      height: size,
      flexShrink: 0,
      borderRadius: radius,
      backgroundColor: o.ring ?? 'transparent',
      alignItems: 'center',
      justifyContent: 'center',
    },
    content,
  );
}

/** The rep's photo filling a panel edge to edge (split layouts); initials on a wash without one. */
export function portrait(ctx: AdContext, width: number, height: number, fill: string, ink: string): AdNode {
  // Faces sit in the upper middle of most portraits: crop from a little below the top.
  if (ctx.photo) return image(ctx.photo, width, height, { objectPosition: 'center 30%', flexShrink: 0 });
  return box(
    {
      width,
      height,
      flexShrink: 0,
      backgroundColor: fill,
      alignItems: 'center',
      justifyContent: 'center',
    },
    box(
      { ...font, fontSize: Math.round(Math.min(width, height) * 0.34), fontWeight: 800, color: ink },
      ctx.initials,
    ),
  );
}

/** Name over role (and optionally company), each cut to one line. */
export function signature(
  ctx: AdContext,
  ink: Ink,
  o: {
    width: number;
    name: number;
    role: number;
    company?: boolean;
    align?: 'left' | 'center';
    gap?: number;
  },
): AdNode {
  const align = o.align ?? 'left';
  // maxWidth, not width with text-align: a centred line cut with an ellipsis loses its start.
  const text = (value: string, size: number, weight: number, color: string, opacity = 1) =>
    value
      ? line(value, { ...font, maxWidth: o.width, fontSize: size, fontWeight: weight, color, opacity })
      : null;
  const role = o.company ? ctx.role : [ctx.role, ctx.company].filter(Boolean).join(' · ');
  return box(
    {
      flexDirection: 'column',
      width: o.width,
      gap: o.gap ?? Math.round(o.role * 0.25),
      alignItems: align === 'center' ? 'center' : 'flex-start',
    },
    text(ctx.name, o.name, 700, ink.title),
    text(role, o.role, 400, ink.body, 0.8),
    o.company ? text(ctx.company, o.role, 600, ink.body, 0.8) : null,
  );
}

/** The website at the right end of a row, cut at its start-preserving end when too long. */
export function websiteRight(ctx: AdContext, width: number, size: number, color: string): Child {
  if (!ctx.website) return null;
  return box(
    { width, justifyContent: 'flex-end' },
    line(ctx.website, { ...font, maxWidth: width, fontSize: size, fontWeight: 600, color, opacity: 0.8 }),
  );
}

/** A pill-shaped call to action with an arrow. */
export function button(
  ctx: AdContext,
  fill: string,
  ink: string,
  o: { size: number; padX: number; padY: number; width?: number; border?: string },
): AdNode {
  return box(
    {
      flexShrink: 0,
      alignItems: 'center',
      justifyContent: 'center',
      gap: Math.round(o.size * 0.45),
      backgroundColor: fill,
      borderRadius: 999,
      padding: `${o.padY}px ${o.padX}px`,
      ...(o.width ? { width: o.width } : {}),
      ...(o.border ? { border: o.border } : {}),
    },
    box({ ...font, fontSize: o.size, fontWeight: 700, color: ink, whiteSpace: 'nowrap' }, ctx.cta),
    arrow(Math.round(o.size * 1.05), ink),
  );
}

/** The client's logo, or the company name set in bold when there is no logo. */
export function brand(ctx: AdContext, width: number, height: number, ink: string): Child {
  if (ctx.logo) {
    return image(ctx.logo, width, height, { objectFit: 'contain', objectPosition: 'left center' });
  }
  if (!ctx.company) return null;
  return line(ctx.company, {
    ...font,
    width,
    fontSize: Math.round(height * 0.5),
    fontWeight: 800,
    color: ink,
  });
}

export function canvas(frame: Size, style: Style, ...children: Child[]): AdNode {
  return box(
    { ...font, width: frame.width, height: frame.height, overflow: 'hidden', position: 'relative', ...style },
    ...children,
  );
}

/**
 * A canvas with shapes behind the content: both layers are positioned, so the content (later)
 * paints over the shapes, as in a browser.
 */
export function layered(
  frame: Size,
  background: string,
  shapes: AdNode[],
  style: Style,
  ...children: Child[]
): AdNode {
  return canvas(
    frame,
    { backgroundColor: background },
    // Marked, so the layout test knows these may bleed off the canvas on purpose.
    ...shapes.map((shape) => ({
      ...shape,
      props: {
        ...shape.props,
        'data-decoration': true,
        style: { position: 'absolute', ...shape.props.style },
      },
    })),
    box(
      { position: 'absolute', left: 0, top: 0, width: frame.width, height: frame.height, ...style },
      ...children,
    ),
  );
}
