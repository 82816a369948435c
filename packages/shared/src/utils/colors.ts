// Colour rules: hex validation (SPEC.md §5), default colours and text colour by brightness (SPEC.md §9).
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

/** Perceived brightness 0–255, (r*299 + g*587 + b*114) / 1000 (the W3C formula). */
export function brightness(hex: string): number {
  if (!isHexColor(hex)) throw new RangeError(`${hex} ${HEX_COLOR_ERROR}`);
  const digits = hex.startsWith('#') ? hex.slice(1) : hex;
  const r = Number.parseInt(digits.slice(0, 2), 16);
  const g = Number.parseInt(digits.slice(2, 4), 16);
  const b = Number.parseInt(digits.slice(4, 6), 16);
  return (r * 299 + g * 587 + b * 114) / 1000;
}

/**
 * Black text on a background brighter than the threshold for `kind`, otherwise white; a background
 * exactly at the threshold gets white text. Throws a RangeError for an invalid hex colour, since
 * colours are validated with `hexColorSchema` where they enter the app.
 */
export function textColorOn(background: string, kind: TextKind): typeof TEXT_WHITE | typeof TEXT_BLACK {
  return brightness(background) > TEXT_BRIGHTNESS_THRESHOLD[kind] ? TEXT_BLACK : TEXT_WHITE;
}
