import { EMAIL_AD_DISPLAY } from '@rally/shared/schemas/content';
import type { TemplateId } from '@rally/shared/schemas/content';
import type { AdNode } from './elements.ts';
import { box, quoteMark } from './elements.ts';
import { buttonOn, mix, tooClose } from './palette.ts';
import type { AdContext, Size } from './template-parts.ts';
import {
  avatar,
  brand,
  button,
  canvas,
  eyebrow,
  headline,
  layered,
  portrait,
  signature,
  websiteRight,
} from './template-parts.ts';

/**
 * The e-mail rendition of the four templates (issue 38, decision 0020). Laid out in the CSS pixels
 * of its place in a message, 600 × 300 (the usual width of an e-mail body), and rasterised at twice
 * that for high-density screens. Each is the template's landscape composition (text beside the rep)
 * with type set for reading at that size: nothing under 12 px, headlines of 17 px and up. The
 * landscape size itself (1200 × 628) shown at 600 px would set its role line at 10 px.
 */
export const EMAIL_FRAME: Size = { width: EMAIL_AD_DISPLAY.width, height: EMAIL_AD_DISPLAY.height };

/** Template 1, "Spotlight": accent rule, headline and button, the rep on a tinted panel. */
function spotlight(ctx: AdContext, frame: Size): AdNode {
  const p = ctx.palette;
  const ink = p.onBackground;
  const cta = buttonOn(p.background, p);
  return canvas(
    frame,
    { backgroundColor: p.background },
    box({ width: 8, height: frame.height, backgroundColor: p.accent }),
    box(
      {
        flexDirection: 'column',
        width: 392,
        padding: '22px 24px 24px 26px',
        justifyContent: 'space-between',
      },
      box({ height: 26, alignItems: 'center' }, brand(ctx, 180, 26, ink.title)),
      box(
        { flexDirection: 'column', gap: 8 },
        eyebrow(ctx, ink.body, 12, 340),
        headline(ctx, ink.title, { width: 340, lines: 3, max: 34, min: 17 }),
      ),
      box({}, button(ctx, cta.fill, cta.ink, { size: 13, padX: 16, padY: 10 })),
    ),
    box(
      {
        flexDirection: 'column',
        width: 200,
        backgroundColor: p.surface,
        alignItems: 'center',
        justifyContent: 'center',
        gap: 12,
        padding: '0 16px',
      },
      avatar(ctx, 100, { ring: p.accent, ringWidth: 4 }),
      signature(ctx, p.onSurface, { width: 168, name: 16, role: 12, company: true, align: 'center' }),
    ),
  );
}

/** Template 2, "Portrait": the rep's photo edge to edge beside the text. */
function portraitSplit(ctx: AdContext, frame: Size): AdNode {
  const p = ctx.palette;
  const ink = p.onBackground;
  const cta = buttonOn(p.background, p);
  return canvas(
    frame,
    { backgroundColor: p.background },
    portrait(ctx, 210, frame.height, mix(p.accent, p.background, 0.78), p.accent),
    box(
      {
        flexDirection: 'column',
        width: 390,
        padding: '22px 26px 24px 28px',
        justifyContent: 'space-between',
      },
      box({ height: 24, alignItems: 'center' }, brand(ctx, 160, 24, ink.title)),
      box(
        { flexDirection: 'column', gap: 8 },
        eyebrow(ctx, ink.body, 12, 336),
        headline(ctx, ink.title, { width: 336, lines: 3, max: 30, min: 17 }),
        box({ width: 48, height: 5, borderRadius: 3, backgroundColor: p.accent }),
      ),
      box(
        { alignItems: 'center', justifyContent: 'space-between', gap: 12 },
        signature(ctx, ink, { width: 170, name: 14, role: 12, company: true }),
        button(ctx, cta.fill, cta.ink, { size: 12, padX: 14, padY: 9 }),
      ),
    ),
  );
}

/** Template 3, "Bold": the accent fills the ad, the rep on a white card. */
function bold(ctx: AdContext, frame: Size): AdNode {
  const p = ctx.palette;
  const ink = p.onAccent;
  const shape = mix(p.accent, ink.title, 0.1);
  const spot = tooClose(p.primary, p.accent) ? ink.title : p.primary;
  const cardCta = buttonOn(p.background, p);
  return layered(
    frame,
    p.accent,
    [box({ left: -90, bottom: -130, width: 260, height: 260, borderRadius: 130, backgroundColor: shape })],
    { padding: '24px 22px 24px 28px', gap: 20, alignItems: 'center' },
    box(
      { flexDirection: 'column', width: 330, gap: 12 },
      eyebrow(ctx, ink.body, 12, 330),
      headline(ctx, ink.title, { width: 330, lines: 3, max: 36, min: 18 }),
      box({ width: 56, height: 6, borderRadius: 3, backgroundColor: spot }),
    ),
    box(
      {
        flexDirection: 'column',
        width: 200,
        backgroundColor: p.background,
        borderRadius: 16,
        padding: '18px 16px 16px',
        alignItems: 'center',
        gap: 10,
      },
      avatar(ctx, 76, { radius: 14 }),
      signature(ctx, p.onBackground, { width: 168, name: 15, role: 12, company: true, align: 'center' }),
      button(ctx, cardCta.fill, cardCta.ink, { size: 12, padX: 10, padY: 8, width: 168 }),
    ),
  );
}

/** Template 4, "Note": the rep on an accent panel, the message in a speech bubble. */
function note(ctx: AdContext, frame: Size): AdNode {
  const p = ctx.palette;
  const bubbleInk = p.onSurface;
  const mark = tooClose(p.accent, p.surface) ? bubbleInk.title : p.accent;
  const cta = buttonOn(p.background, p);
  return canvas(
    frame,
    { backgroundColor: p.background },
    box(
      {
        flexDirection: 'column',
        width: 190,
        backgroundColor: p.accent,
        alignItems: 'center',
        justifyContent: 'center',
        gap: 12,
        padding: '0 14px',
      },
      avatar(ctx, 96, { ring: p.background, ringWidth: 4, fill: mix(p.accent, p.background, 0.25) }),
      signature(ctx, p.onAccent, { width: 162, name: 15, role: 12, company: true, align: 'center' }),
    ),
    box(
      { flexDirection: 'column', width: 410, padding: '22px 24px', justifyContent: 'center', gap: 16 },
      box(
        {
          flexDirection: 'column',
          backgroundColor: p.surface,
          borderRadius: 18,
          borderBottomLeftRadius: 4,
          padding: '16px 20px 18px',
          gap: 8,
        },
        quoteMark(24, mark),
        headline(ctx, bubbleInk.title, { width: 322, lines: 3, max: 26, min: 15, weight: 700 }),
      ),
      box(
        { alignItems: 'center', justifyContent: 'space-between', gap: 12 },
        button(ctx, cta.fill, cta.ink, { size: 12, padX: 14, padY: 9 }),
        ctx.logo
          ? brand(ctx, 110, 24, p.onBackground.title)
          : websiteRight(ctx, 170, 12, p.onBackground.body),
      ),
    ),
  );
}

/** The e-mail layout of each template (SPEC.md §9 "Template ids 1 to 4"). */
export const EMAIL_TEMPLATES: Record<TemplateId, (ctx: AdContext, frame: Size) => AdNode> = {
  1: spotlight,
  2: portraitSplit,
  3: bold,
  4: note,
};
