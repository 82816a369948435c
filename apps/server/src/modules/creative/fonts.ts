import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Font } from 'satori';

/** The family every ad is set in (Inter, shipped in @fontsource/inter, so no network at render time). */
export const AD_FONT_FAMILY = 'Inter';

const WEIGHTS = [400, 600, 700, 800] as const;
export type FontWeight = (typeof WEIGHTS)[number];

// Latin first (the common case); the other subsets give names such as "Łukasz", "Βασίλης" or
// "Дмитрий" their glyphs instead of blank boxes. WOFF, not WOFF2: no Brotli pass at start-up.
const SUBSETS = ['latin', 'latin-ext', 'cyrillic', 'cyrillic-ext', 'greek', 'vietnamese'] as const;

let loaded: Font[] | undefined;

/**
 * The fonts, read once and then the same array every call: satori caches parsed fonts by the
 * identity of this array, so a new array per render would parse them all again.
 */
export function adFonts(): Font[] {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  loaded = SUBSETS.flatMap((subset) =>
    WEIGHTS.map((weight) => ({
      name: AD_FONT_FAMILY,
      data: readFileSync(require.resolve(`@fontsource/inter/files/inter-${subset}-${weight}-normal.woff`)),
      weight,
      style: 'normal' as const,
    })),
  );
  return loaded;
}
