import { createRequire } from 'node:module';
import type * as ResvgJs from '@resvg/resvg-js';

// resvg (a 4 MB native addon) is required at the first sample image, not at start: this file is
// re-exported by the creative module's index, which the server loads (bench/README.md "Embedded mode").
const require = createRequire(import.meta.url);
const resvg = () => require('@resvg/resvg-js') as typeof ResvgJs;

// Drawn pictures for tests, screenshots and demo data: no stock photos in the repository.

/** A head-and-shoulders illustration (PNG), tinted by `hue`, `size` pixels square. */
export function samplePortraitPng(size = 512, hue = 210): Buffer {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 100 100">
  <defs>
    <linearGradient id="bg" x1="0" y1="0" x2="1" y2="1">
      <stop offset="0" stop-color="hsl(${hue},45%,82%)"/><stop offset="1" stop-color="hsl(${hue + 30},40%,62%)"/>
    </linearGradient>
  </defs>
  <rect width="100" height="100" fill="url(#bg)"/>
  <path d="M14 100 C16 78 32 70 50 70 C68 70 84 78 86 100 Z" fill="hsl(${hue + 180},30%,30%)"/>
  <path d="M42 62 L58 62 L57 72 C54 76 46 76 43 72 Z" fill="#d9a184"/>
  <ellipse cx="50" cy="44" rx="15" ry="18" fill="#e8b596"/>
  <path d="M34 42 C33 26 44 21 52 22 C62 22 68 30 66 42 C64 34 58 31 50 31 C42 31 37 35 34 42 Z" fill="hsl(25,45%,22%)"/>
  <path d="M40 72 L50 84 L60 72" fill="none" stroke="#ffffff" stroke-width="2.5"/>
</svg>`;
  return new (resvg().Resvg)(svg, { font: { loadSystemFonts: false } }).render().asPng();
}

/** A simple word-mark logo (PNG) with transparent background, `width` x `width / 4`. */
export function sampleLogoPng(width = 400, color = '#111827'): Buffer {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${width / 4}" viewBox="0 0 200 50">
  <rect x="2" y="8" width="34" height="34" rx="9" fill="${color}"/>
  <path d="M11 31 L19 17 L27 31 Z" fill="#ffffff"/>
  <rect x="46" y="16" width="120" height="8" rx="4" fill="${color}"/>
  <rect x="46" y="30" width="80" height="6" rx="3" fill="${color}" opacity="0.55"/>
</svg>`;
  return new (resvg().Resvg)(svg, { font: { loadSystemFonts: false } }).render().asPng();
}
