import type { AdSize, TemplateId } from '@rally/shared/schemas/content';
import type { AdNode } from './elements.ts';
import { arrow, box, line, quoteMark } from './elements.ts';
import { buttonOn, mix, tooClose } from './palette.ts';
import type { AdContext } from './template-parts.ts';
import {
  avatar,
  brand,
  button,
  canvas,
  eyebrow,
  font,
  headline,
  layered,
  portrait,
  signature,
  websiteRight,
} from './template-parts.ts';

export type { AdContext } from './template-parts.ts';
export { estimateLines, fitFontSize } from './template-parts.ts';

/**
 * Bumped whenever a template's look or the PNG encoding changes, so cached PNGs of the old look are
 * not served again (it is part of every cache key). 2: palette PNGs.
 */
export const TEMPLATE_VERSION = 2;

/** How an ad size is laid out: 1080x1080 square, 1200x628 landscape, 300x250 rectangle, 728x90 strip. */
export type AdFormat = 'square' | 'landscape' | 'rectangle' | 'leaderboard';
export type Frame = { width: number; height: number; format: AdFormat };

const FORMATS: Record<AdSize, AdFormat> = {
  '1080x1080': 'square',
  '1200x628': 'landscape',
  '300x250': 'rectangle',
  '728x90': 'leaderboard',
};

export function frameOf(size: AdSize): Frame {
  const [width = 0, height = 0] = size.split('x').map(Number);
  return { width, height, format: FORMATS[size] };
}

// ---------------------------------------------------------------------------------------------
// Template 1, "Spotlight": a clean card with an accent rule, a big headline and the rep's signature

function spotlight(ctx: AdContext, frame: Frame): AdNode {
  const p = ctx.palette;
  const ink = p.onBackground;
  const cta = buttonOn(p.background, p);
  switch (frame.format) {
    case 'square':
      return canvas(
        frame,
        { flexDirection: 'column', backgroundColor: p.background },
        box({ width: frame.width, height: 18, backgroundColor: p.accent }),
        box(
          {
            flexDirection: 'column',
            flexGrow: 1,
            padding: '64px 84px 72px',
            justifyContent: 'space-between',
          },
          box({ height: 72, alignItems: 'center' }, brand(ctx, 320, 72, ink.title)),
          box(
            { flexDirection: 'column', gap: 28 },
            eyebrow(ctx, ink.body, 28, 912),
            headline(ctx, ink.title, { width: 912, lines: 5, max: 104, min: 48 }),
          ),
          box(
            { flexDirection: 'column', gap: 40 },
            box({ width: 912, height: 3, backgroundColor: ink.body, opacity: 0.12 }),
            box(
              { alignItems: 'center', justifyContent: 'space-between', gap: 24 },
              box(
                { alignItems: 'center', gap: 30 },
                avatar(ctx, 150, { ring: p.accent, ringWidth: 6 }),
                signature(ctx, ink, { width: 360, name: 42, role: 27, company: true }),
              ),
              button(ctx, cta.fill, cta.ink, { size: 29, padX: 38, padY: 25 }),
            ),
          ),
        ),
      );
    case 'landscape':
      return canvas(
        frame,
        { backgroundColor: p.background },
        box({ width: 16, height: frame.height, backgroundColor: p.accent }),
        box(
          {
            flexDirection: 'column',
            width: 784,
            padding: '52px 56px 56px 60px',
            justifyContent: 'space-between',
          },
          box({ height: 52, alignItems: 'center' }, brand(ctx, 260, 52, ink.title)),
          box(
            { flexDirection: 'column', gap: 20 },
            eyebrow(ctx, ink.body, 20, 660),
            headline(ctx, ink.title, { width: 660, lines: 4, max: 74, min: 36 }),
          ),
          box({}, button(ctx, cta.fill, cta.ink, { size: 24, padX: 32, padY: 20 })),
        ),
        box(
          {
            flexDirection: 'column',
            width: 400,
            backgroundColor: p.surface,
            alignItems: 'center',
            justifyContent: 'center',
            gap: 26,
            padding: '0 36px',
          },
          avatar(ctx, 220, { ring: p.accent, ringWidth: 7 }),
          signature(ctx, p.onSurface, { width: 328, name: 32, role: 21, company: true, align: 'center' }),
        ),
      );
    case 'rectangle':
      return canvas(
        frame,
        { flexDirection: 'column', backgroundColor: p.background },
        box({ width: frame.width, height: 6, backgroundColor: p.accent }),
        box(
          {
            flexDirection: 'column',
            flexGrow: 1,
            padding: '12px 16px 14px',
            justifyContent: 'space-between',
          },
          box(
            { flexDirection: 'column', gap: 5 },
            eyebrow(ctx, ink.body, 10, 268),
            headline(ctx, ink.title, { width: 268, lines: 4, max: 27, min: 14 }),
          ),
          box(
            { flexDirection: 'column', gap: 10 },
            box(
              { alignItems: 'center', gap: 10 },
              avatar(ctx, 46, { ring: p.accent, ringWidth: 2 }),
              signature(ctx, ink, { width: 210, name: 15, role: 11.5 }),
            ),
            button(ctx, cta.fill, cta.ink, { size: 13, padX: 14, padY: 8, width: 268 }),
          ),
        ),
      );
    case 'leaderboard':
      return canvas(
        frame,
        { backgroundColor: p.background, alignItems: 'center' },
        box({ width: 6, height: frame.height, backgroundColor: p.accent }),
        box({ width: 14 }),
        avatar(ctx, 64, { ring: p.accent, ringWidth: 3 }),
        box({ width: 12 }),
        signature(ctx, ink, { width: 132, name: 15, role: 11 }),
        box({ width: 2, height: 54, backgroundColor: ink.body, opacity: 0.15, margin: '0 16px' }),
        box(
          { flexGrow: 1, width: 280 },
          headline(ctx, ink.title, { width: 280, lines: 2, max: 22, min: 13 }),
        ),
        box({ width: 14 }),
        button(ctx, cta.fill, cta.ink, { size: 13, padX: 16, padY: 11 }),
        box({ width: 16 }),
      );
  }
}

// ---------------------------------------------------------------------------------------------
// Template 2, "Portrait": the rep's photo edge to edge beside (or above) a solid accent panel

function portraitSplit(ctx: AdContext, frame: Frame): AdNode {
  const p = ctx.palette;
  const panelInk = p.onAccent;
  const cta = buttonOn(p.accent, p);
  const placeholder = mix(p.accent, p.background, 0.78);
  const placeholderInk = p.accent;
  switch (frame.format) {
    case 'square':
      return canvas(
        frame,
        { flexDirection: 'column', backgroundColor: p.accent },
        box(
          { width: frame.width, height: 600, position: 'relative' },
          portrait(ctx, frame.width, 600, placeholder, placeholderInk),
          box(
            {
              position: 'absolute',
              left: 56,
              bottom: 40,
              flexDirection: 'column',
              backgroundColor: p.background,
              borderRadius: 18,
              padding: '18px 26px',
            },
            signature(ctx, p.onBackground, { width: 520, name: 34, role: 22 }),
          ),
        ),
        box(
          {
            flexDirection: 'column',
            flexGrow: 1,
            padding: '44px 64px 52px',
            justifyContent: 'space-between',
          },
          box(
            { flexDirection: 'column', gap: 16 },
            eyebrow(ctx, panelInk.body, 24, 952),
            headline(ctx, panelInk.title, { width: 952, lines: 3, max: 76, min: 38 }),
          ),
          box(
            { alignItems: 'center', justifyContent: 'space-between' },
            button(ctx, cta.fill, cta.ink, { size: 28, padX: 36, padY: 22 }),
            websiteRight(ctx, 420, 24, panelInk.body),
          ),
        ),
      );
    case 'landscape':
      return canvas(
        frame,
        { backgroundColor: p.background },
        portrait(ctx, 470, frame.height, placeholder, placeholderInk),
        box(
          { flexDirection: 'column', width: 730, padding: '50px 60px 52px', justifyContent: 'space-between' },
          box({ height: 44, alignItems: 'center' }, brand(ctx, 240, 44, p.onBackground.title)),
          box(
            { flexDirection: 'column', gap: 18 },
            eyebrow(ctx, p.onBackground.body, 18, 610),
            headline(ctx, p.onBackground.title, { width: 610, lines: 4, max: 60, min: 32 }),
            box({ width: 84, height: 8, borderRadius: 4, backgroundColor: p.accent }),
          ),
          box(
            { alignItems: 'center', justifyContent: 'space-between', gap: 20 },
            signature(ctx, p.onBackground, { width: 300, name: 26, role: 18, company: true }),
            button(ctx, buttonOn(p.background, p).fill, buttonOn(p.background, p).ink, {
              size: 21,
              padX: 28,
              padY: 17,
            }),
          ),
        ),
      );
    case 'rectangle':
      return canvas(
        frame,
        { backgroundColor: p.accent },
        portrait(ctx, 112, frame.height, placeholder, placeholderInk),
        box(
          { flexDirection: 'column', width: 188, padding: '14px 14px 14px', justifyContent: 'space-between' },
          headline(ctx, panelInk.title, { width: 160, lines: 5, max: 22, min: 13 }),
          box(
            { flexDirection: 'column', gap: 9 },
            signature(ctx, panelInk, { width: 160, name: 13, role: 10 }),
            button(ctx, cta.fill, cta.ink, { size: 11.5, padX: 10, padY: 7, width: 160 }),
          ),
        ),
      );
    case 'leaderboard':
      return canvas(
        frame,
        { backgroundColor: p.accent, alignItems: 'center' },
        portrait(ctx, 90, 90, placeholder, placeholderInk),
        box(
          { flexGrow: 1, width: 330, padding: '0 18px', alignItems: 'center' },
          headline(ctx, panelInk.title, { width: 330, lines: 2, max: 21, min: 13 }),
        ),
        box(
          {
            flexDirection: 'column',
            justifyContent: 'center',
            gap: 7,
            width: 210,
            height: 90,
            padding: '0 16px',
            backgroundColor: p.background,
          },
          signature(ctx, p.onBackground, { width: 178, name: 14, role: 10.5, gap: 2 }),
          box(
            { alignItems: 'center', gap: 6 },
            box({ fontSize: 12, fontWeight: 700, color: p.onBackground.title }, ctx.cta),
            arrow(13, p.onBackground.title),
          ),
        ),
      );
  }
}

// ---------------------------------------------------------------------------------------------
// Template 3, "Bold": the accent fills the ad, an oversized headline, the rep on a white card

function bold(ctx: AdContext, frame: Frame): AdNode {
  const p = ctx.palette;
  const ink = p.onAccent;
  // Big shapes are a tint of the accent (a second hue at that size turns muddy); the primary
  // colour marks only the small accents.
  const shape = mix(p.accent, ink.title, 0.1);
  const spot = tooClose(p.primary, p.accent) ? ink.title : p.primary;
  const card = p.background;
  const cardCta = buttonOn(card, p);
  const rule = (width: number, height: number) =>
    box({ width, height, borderRadius: height / 2, backgroundColor: spot });
  switch (frame.format) {
    case 'square':
      return layered(
        frame,
        p.accent,
        [
          box({ right: -180, top: -180, width: 620, height: 620, borderRadius: 310, backgroundColor: shape }),
          box({ right: 150, top: 150, width: 56, height: 56, borderRadius: 28, backgroundColor: spot }),
        ],
        { flexDirection: 'column', padding: '72px 80px 80px', justifyContent: 'space-between' },
        box(
          { height: 64, alignItems: 'center' },
          ctx.logo ? brand(ctx, 300, 64, ink.title) : eyebrow(ctx, ink.body, 26, 700),
        ),
        box(
          { flexDirection: 'column', gap: 30 },
          ctx.logo ? eyebrow(ctx, ink.body, 26, 920) : null,
          headline(ctx, ink.title, { width: 920, lines: 4, max: 116, min: 54 }),
          rule(150, 14),
        ),
        box(
          { alignItems: 'center', gap: 28, backgroundColor: card, borderRadius: 28, padding: '28px 32px' },
          avatar(ctx, 124, { radius: 22 }),
          signature(ctx, p.onBackground, { width: 380, name: 38, role: 25, company: true }),
          box({ flexGrow: 1 }),
          button(ctx, cardCta.fill, cardCta.ink, { size: 25, padX: 28, padY: 20 }),
        ),
      );
    case 'landscape':
      return layered(
        frame,
        p.accent,
        [
          box({
            left: -140,
            bottom: -220,
            width: 460,
            height: 460,
            borderRadius: 230,
            backgroundColor: shape,
          }),
        ],
        { padding: '56px 56px 56px 64px', gap: 48, alignItems: 'center' },
        box(
          { flexDirection: 'column', width: 680, gap: 24 },
          eyebrow(ctx, ink.body, 19, 660),
          headline(ctx, ink.title, { width: 660, lines: 4, max: 80, min: 38 }),
          rule(110, 10),
        ),
        box(
          {
            flexDirection: 'column',
            width: 352,
            backgroundColor: card,
            borderRadius: 26,
            padding: '34px 28px 28px',
            alignItems: 'center',
            gap: 20,
          },
          avatar(ctx, 150, { radius: 24 }),
          signature(ctx, p.onBackground, { width: 296, name: 27, role: 18, company: true, align: 'center' }),
          button(ctx, cardCta.fill, cardCta.ink, { size: 19, padX: 18, padY: 15, width: 296 }),
        ),
      );
    case 'rectangle':
      return layered(
        frame,
        p.accent,
        [box({ right: -60, top: -60, width: 150, height: 150, borderRadius: 75, backgroundColor: shape })],
        { flexDirection: 'column', padding: '16px 14px 14px', justifyContent: 'space-between' },
        box(
          { flexDirection: 'column', gap: 8 },
          headline(ctx, ink.title, { width: 262, lines: 4, max: 28, min: 15 }),
          rule(44, 5),
        ),
        box(
          {
            alignItems: 'center',
            gap: 9,
            backgroundColor: card,
            borderRadius: 12,
            padding: '8px 8px 8px 8px',
          },
          avatar(ctx, 40, { radius: 9 }),
          signature(ctx, p.onBackground, { width: 150, name: 13, role: 10 }),
          box({ flexGrow: 1 }),
          box(
            {
              width: 34,
              height: 34,
              borderRadius: 17,
              backgroundColor: cardCta.fill,
              alignItems: 'center',
              justifyContent: 'center',
            },
            arrow(17, cardCta.ink),
          ),
        ),
      );
    case 'leaderboard':
      return layered(
        frame,
        p.accent,
        [box({ left: 250, top: -80, width: 150, height: 150, borderRadius: 75, backgroundColor: shape })],
        { alignItems: 'center', justifyContent: 'space-between', padding: '0 11px 0 22px', gap: 14 },
        box(
          { flexDirection: 'column', width: 330, gap: 6 },
          headline(ctx, ink.title, { width: 330, lines: 2, max: 23, min: 13 }),
          rule(36, 4),
        ),
        box(
          {
            alignItems: 'center',
            gap: 10,
            backgroundColor: card,
            borderRadius: 12,
            padding: '8px 10px',
            height: 68,
          },
          avatar(ctx, 50, { radius: 10 }),
          signature(ctx, p.onBackground, { width: 112, name: 13, role: 10 }),
          button(ctx, cardCta.fill, cardCta.ink, { size: 11, padX: 11, padY: 8 }),
        ),
      );
  }
}

// ---------------------------------------------------------------------------------------------
// Template 4, "Note": a personal message from the rep in a speech bubble

function note(ctx: AdContext, frame: Frame): AdNode {
  const p = ctx.palette;
  const bubble = p.surface;
  const bubbleInk = p.onSurface;
  const mark = tooClose(p.accent, bubble) ? bubbleInk.title : p.accent;
  const cta = buttonOn(p.background, p);
  const quote = (size: number) => quoteMark(size, mark);
  switch (frame.format) {
    case 'square':
      return canvas(
        frame,
        {
          flexDirection: 'column',
          backgroundColor: p.background,
          padding: '72px 80px',
          justifyContent: 'space-between',
        },
        box(
          { alignItems: 'center', gap: 28 },
          avatar(ctx, 136, { ring: p.accent, ringWidth: 5 }),
          signature(ctx, p.onBackground, { width: 560, name: 42, role: 26, company: true }),
          box({ flexGrow: 1 }),
          ctx.logo ? brand(ctx, 150, 56, p.onBackground.title) : null,
        ),
        box(
          {
            flexDirection: 'column',
            backgroundColor: bubble,
            borderRadius: 44,
            borderTopLeftRadius: 8,
            padding: '56px 64px 64px',
            gap: 28,
          },
          quote(72),
          headline(ctx, bubbleInk.title, { width: 792, lines: 5, max: 74, min: 38, weight: 700 }),
        ),
        box(
          { alignItems: 'center', justifyContent: 'space-between' },
          button(ctx, cta.fill, cta.ink, { size: 28, padX: 36, padY: 22 }),
          websiteRight(ctx, 400, 24, p.onBackground.body),
        ),
      );
    case 'landscape':
      return canvas(
        frame,
        { backgroundColor: p.background },
        box(
          {
            flexDirection: 'column',
            width: 360,
            backgroundColor: p.accent,
            alignItems: 'center',
            justifyContent: 'center',
            gap: 24,
            padding: '0 30px',
          },
          avatar(ctx, 200, { ring: p.background, ringWidth: 7, fill: mix(p.accent, p.background, 0.25) }),
          signature(ctx, p.onAccent, { width: 300, name: 30, role: 19, company: true, align: 'center' }),
        ),
        box(
          { flexDirection: 'column', width: 840, padding: '48px 64px', justifyContent: 'center', gap: 40 },
          box(
            {
              flexDirection: 'column',
              backgroundColor: bubble,
              borderRadius: 32,
              borderBottomLeftRadius: 6,
              padding: '40px 48px 44px',
              gap: 18,
            },
            quote(52),
            headline(ctx, bubbleInk.title, { width: 616, lines: 4, max: 54, min: 30, weight: 700 }),
          ),
          box(
            { alignItems: 'center', justifyContent: 'space-between' },
            button(ctx, cta.fill, cta.ink, { size: 22, padX: 30, padY: 18 }),
            ctx.logo
              ? brand(ctx, 180, 44, p.onBackground.title)
              : websiteRight(ctx, 300, 19, p.onBackground.body),
          ),
        ),
      );
    case 'rectangle':
      return canvas(
        frame,
        {
          flexDirection: 'column',
          backgroundColor: p.background,
          padding: '12px 14px 12px',
          justifyContent: 'space-between',
        },
        box(
          { alignItems: 'center', gap: 9 },
          avatar(ctx, 40, { ring: p.accent, ringWidth: 2 }),
          signature(ctx, p.onBackground, { width: 210, name: 14, role: 10.5 }),
        ),
        box(
          {
            flexDirection: 'column',
            backgroundColor: bubble,
            borderRadius: 14,
            borderTopLeftRadius: 3,
            padding: '9px 12px 11px',
            gap: 4,
            height: 124,
          },
          quote(20),
          headline(ctx, bubbleInk.title, { width: 248, lines: 4, max: 21, min: 12, weight: 700 }),
        ),
        button(ctx, cta.fill, cta.ink, { size: 12, padX: 12, padY: 7, width: 272 }),
      );
    case 'leaderboard':
      return canvas(
        frame,
        { backgroundColor: p.background, alignItems: 'center', padding: '0 14px', gap: 12 },
        box(
          { flexDirection: 'column', alignItems: 'center', width: 96, gap: 3 },
          avatar(ctx, 52, { ring: p.accent, ringWidth: 2 }),
          line(ctx.name, {
            ...font,
            maxWidth: 96,
            fontSize: 10.5,
            fontWeight: 700,
            color: p.onBackground.title,
          }),
        ),
        box(
          {
            flexGrow: 1,
            width: 420,
            height: 66,
            backgroundColor: bubble,
            borderRadius: 14,
            borderBottomLeftRadius: 3,
            padding: '0 16px',
            alignItems: 'center',
            gap: 10,
          },
          quote(22),
          headline(ctx, bubbleInk.title, { width: 360, lines: 2, max: 19, min: 12, weight: 700 }),
        ),
        button(ctx, cta.fill, cta.ink, { size: 12, padX: 13, padY: 10 }),
      );
  }
}

/** The four templates (SPEC.md §9 "Template ids 1 to 4"). */
export const TEMPLATES: Record<
  TemplateId,
  { name: string; build: (ctx: AdContext, frame: Frame) => AdNode }
> = {
  1: { name: 'Spotlight', build: spotlight },
  2: { name: 'Portrait', build: portraitSplit },
  3: { name: 'Bold', build: bold },
  4: { name: 'Note', build: note },
};
