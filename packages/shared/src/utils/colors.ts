// Colour rules: hex validation (SPEC.md §5), default colours, text colour by brightness (SPEC.md §9)
// and the WCAG 2.1 AA contrast floor under it (docs/decisions/0011-readable-text-colour.md).
import { z } from 'zod';

/** SPEC.md §5: "Hex color: 6 hexadecimal digits with optional #". */
export const HEX_COLOR_PATTERN = /^#?[0-9a-fA-F]{6}$/;

/** SPEC.md §5: "otherwise error 'is not a valid hex color'". */
export const HEX_COLOR_ERROR = 'is not a valid hex color';

// The same message for a non-string, so a form shows one error whatever the field holds.
export const hexColorSchema = z
  .string({ error: HEX_COLOR_ERROR })
  .regex(HEX_COLOR_PATTERN, { error: HEX_COLOR_ERROR });

export function isHexColor(value: unknown): value is string {
  return typeof value === 'string' && HEX_COLOR_PATTERN.test(value);
}

/** SPEC.md §3/§9: background #ffffff, text and accent #000000 (primary is optional, no default). */
export const DEFAULT_COLORS = {
  background: '#ffffff',
  text: '#000000',
  accent: '#000000',
} as const;

export type TextKind = 'title' | 'body';

/** SPEC.md §9: "brightness threshold 200 for titles and 150 for body text". */
export const TEXT_BRIGHTNESS_THRESHOLD = { title: 200, body: 150 } as const satisfies Record<
  TextKind,
  number
>;

export const TEXT_WHITE = '#ffffff';
export const TEXT_BLACK = '#000000';

/** The red, green and blue channels 0–255 of a valid hex colour; a RangeError otherwise. */
function channels(hex: string): [number, number, number] {
  if (!isHexColor(hex)) throw new RangeError(`${hex} ${HEX_COLOR_ERROR}`);
  const digits = hex.startsWith('#') ? hex.slice(1) : hex;
  return [0, 2, 4].map((i) => Number.parseInt(digits.slice(i, i + 2), 16)) as [number, number, number];
}

/** Perceived brightness 0–255, (r*299 + g*587 + b*114) / 1000 (the W3C formula). */
export function brightness(hex: string): number {
  const [r, g, b] = channels(hex);
  return (r * 299 + g * 587 + b * 114) / 1000;
}

/** WCAG 2.1 relative luminance, 0 (black) to 1 (white), of a valid hex colour. */
export function relativeLuminance(hex: string): number {
  const [r, g, b] = channels(hex).map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2.1 contrast ratio of two colours, from 1 (the same) to 21 (black on white), either order. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [
    number,
    number,
  ];
  return (light + 0.05) / (dark + 0.05);
}

/**
 * WCAG 2.1 AA (1.4.3) minimum contrast for text that is not "large" (≥ 24px, or ≥ 18.66px bold).
 * Titles get it too, not the 3:1 of large text: title ink also colours 16px bold button labels and
 * page headings from 17px, the preview's 16px bold logo text and 13px names on the small ads.
 */
export const MIN_TEXT_CONTRAST = 4.5;

/**
 * Black text on a background brighter than the threshold for `kind`, otherwise white; a background
 * exactly at the threshold gets white text. Throws a RangeError for an invalid hex colour, since
 * colours are validated with `hexColorSchema` where they enter the app.
 */
export function textColorOn(background: string, kind: TextKind): typeof TEXT_WHITE | typeof TEXT_BLACK {
  return brightness(background) > TEXT_BRIGHTNESS_THRESHOLD[kind] ? TEXT_BLACK : TEXT_WHITE;
}

/**
 * The text colour to draw on `background`: SPEC.md §9's choice (`textColorOn`) unless it has less
 * than WCAG 2.1 AA contrast there (`MIN_TEXT_CONTRAST`), then the other of black and white, which
 * always has at least 4.58:1 (issue 21, docs/decisions/0011-readable-text-colour.md). For mid-tones
 * the brightness rule alone picks unreadable text: white at 2.8:1 on orange #f97316 (black: 7.5:1),
 * white at 1.7:1 on a #c8c8c8 title. Use this wherever people read the text; `textColorOn` stays as
 * the spec's rule.
 */
export function readableTextColorOn(
  background: string,
  kind: TextKind,
): typeof TEXT_WHITE | typeof TEXT_BLACK {
  const spec = textColorOn(background, kind);
  if (contrastRatio(spec, background) >= MIN_TEXT_CONTRAST) return spec;
  return spec === TEXT_BLACK ? TEXT_WHITE : TEXT_BLACK;
}
