import {
  DEFAULT_COLORS,
  MIN_TEXT_CONTRAST,
  brightness,
  contrastRatio,
  isHexColor,
  readableTextColorOn,
} from '@rally/shared';
import type { TextKind } from '@rally/shared';

/** SPEC.md §3 "Colors" as the renderer receives them (with or without '#'). */
export type AdColors = { background: string; text: string; accent: string; primary?: string | null };

/** Ink for the two kinds of text on one surface. */
export type Ink = { title: string; body: string };

export type AdPalette = {
  background: string;
  accent: string;
  /** The call-to-action colour: `primary` when set, else the accent. */
  primary: string;
  /** A light wash of the accent over the background, for cards and bubbles. */
  surface: string;
  onBackground: Ink;
  onAccent: Ink;
  onPrimary: Ink;
  onSurface: Ink;
};

// W3C's "brightness difference" for readable text (Techniques for Accessibility Evaluation).
const MIN_BRIGHTNESS_DIFFERENCE = 125;

function hex(value: string | null | undefined, fallback: string): string {
  if (!value || !isHexColor(value)) return fallback;
  return (value.startsWith('#') ? value : `#${value}`).toLowerCase();
}

/**
 * The colour of `kind` text on `surface`, for landing pages and ad images alike: the client's chosen
 * text colour when it stands out from the surface and has WCAG 2.1 AA contrast on it, otherwise white
 * or black by the brightness threshold of SPEC.md §9 (200 for titles, 150 for body text) unless that
 * is under AA contrast, then the other one (issue 21, docs/decisions/0011-readable-text-colour.md).
 */
export function inkOn(surface: string, kind: TextKind, preferred?: string): string {
  if (
    preferred &&
    Math.abs(brightness(preferred) - brightness(surface)) >= MIN_BRIGHTNESS_DIFFERENCE &&
    contrastRatio(preferred, surface) >= MIN_TEXT_CONTRAST
  ) {
    return preferred;
  }
  return readableTextColorOn(surface, kind);
}

/** `a` moved towards `b` by `amount` (0–1), channel by channel. */
export function mix(a: string, b: string, amount: number): string {
  const channels = (c: string) => [1, 3, 5].map((i) => Number.parseInt(c.slice(i, i + 2), 16));
  const from = channels(a);
  const to = channels(b);
  return `#${from
    .map((v, i) =>
      Math.round(v + ((to[i] ?? v) - v) * amount)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
}

/** Whether two colours are too close in brightness to tell a button from the panel it sits on. */
export function tooClose(a: string, b: string): boolean {
  return Math.abs(brightness(a) - brightness(b)) < 40;
}

export function adPalette(colors: AdColors): AdPalette {
  const background = hex(colors.background, DEFAULT_COLORS.background);
  const text = hex(colors.text, DEFAULT_COLORS.text);
  const accent = hex(colors.accent, DEFAULT_COLORS.accent);
  const primary = hex(colors.primary, accent);
  const surface = mix(background, accent, 0.07);
  const on = (s: string, preferred?: string): Ink => ({
    title: inkOn(s, 'title', preferred),
    body: inkOn(s, 'body', preferred),
  });
  return {
    background,
    accent,
    primary,
    surface,
    // The chosen text colour is meant for the background and the light surface; on the accent and
    // primary fills only white or black is safe.
    onBackground: on(background, text),
    onAccent: on(accent),
    onPrimary: on(primary),
    onSurface: on(surface, text),
  };
}

/** A button colour that stands out from `panel`: primary, else the background, else the ink. */
export function buttonOn(panel: string, p: AdPalette): { fill: string; ink: string } {
  if (!tooClose(p.primary, panel)) return { fill: p.primary, ink: p.onPrimary.title };
  if (!tooClose(p.background, panel)) return { fill: p.background, ink: p.onBackground.title };
  return { fill: p.onBackground.title, ink: p.background };
}
