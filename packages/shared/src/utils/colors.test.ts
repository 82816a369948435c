import { describe, expect, it } from 'vitest';
import {
  TEXT_BLACK,
  DEFAULT_COLORS,
  HEX_COLOR_ERROR,
  MIN_TEXT_CONTRAST,
  TEXT_BRIGHTNESS_THRESHOLD,
  TEXT_WHITE,
  brightness,
  contrastRatio,
  hexColorSchema,
  isHexColor,
  readableTextColorOn,
  relativeLuminance,
  textColorOn,
} from './colors.ts';

const VALID = ['#ffffff', 'ffffff', '#000000', '#A1b2C3', 'abcdef', '#123456'];
const INVALID = [
  '',
  '#',
  '#fff',
  'fff',
  '#fffffff',
  '##ffffff',
  '#gggggg',
  'ffffff#',
  ' #ffffff',
  '#ffffff ',
  'red',
];

describe('"Hex color: 6 hexadecimal digits with optional #; otherwise error \'is not a valid hex color\'." (SPEC.md §5)', () => {
  it.each(VALID)('accepts %j', (value) => {
    expect(isHexColor(value)).toBe(true);
    expect(hexColorSchema.safeParse(value)).toEqual({ success: true, data: value });
  });

  it.each(INVALID)('rejects %j with the spec message', (value) => {
    expect(isHexColor(value)).toBe(false);
    const result = hexColorSchema.safeParse(value);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.message)).toEqual([HEX_COLOR_ERROR]);
  });

  it('uses the exact message', () => {
    expect(HEX_COLOR_ERROR).toBe('is not a valid hex color');
  });

  it.each([null, undefined, 0xffffff, {}])('rejects the non-string %j with the same message', (value) => {
    expect(isHexColor(value)).toBe(false);
    const result = hexColorSchema.safeParse(value);
    expect(result.error?.issues.map((i) => i.message)).toEqual([HEX_COLOR_ERROR]);
  });
});

describe('"Default colors #ffffff (background), #000000 (text, accent)." (SPEC.md §9)', () => {
  it('has the three defaults, each a valid hex colour', () => {
    expect(DEFAULT_COLORS).toEqual({ background: '#ffffff', text: '#000000', accent: '#000000' });
    for (const colour of Object.values(DEFAULT_COLORS)) expect(isHexColor(colour)).toBe(true);
  });
});

describe('"Text colour is white or black by brightness threshold 200 for titles and 150 for body text." (SPEC.md §9)', () => {
  it('has the spec thresholds', () => {
    expect(TEXT_BRIGHTNESS_THRESHOLD).toEqual({ title: 200, body: 150 });
  });

  it('computes perceived brightness from 0 to 255, with or without #', () => {
    expect(brightness('#000000')).toBe(0);
    expect(brightness('ffffff')).toBe(255);
    expect(brightness('#FF0000')).toBeCloseTo(76.245);
    expect(brightness('#00ff00')).toBeCloseTo(149.685);
    expect(brightness('#0000ff')).toBeCloseTo(29.07);
  });

  it('puts black text on light and white text on dark backgrounds', () => {
    expect(textColorOn(DEFAULT_COLORS.background, 'title')).toBe(TEXT_BLACK);
    expect(textColorOn(DEFAULT_COLORS.background, 'body')).toBe(TEXT_BLACK);
    expect(textColorOn('#000000', 'title')).toBe(TEXT_WHITE);
    expect(textColorOn('#000000', 'body')).toBe(TEXT_WHITE);
    expect([TEXT_WHITE, TEXT_BLACK]).toEqual(['#ffffff', '#000000']);
  });

  it('gives white text at exactly 200 and black just above it for titles', () => {
    expect(brightness('#c8c8c8')).toBe(200);
    expect(textColorOn('#c8c8c8', 'title')).toBe(TEXT_WHITE);
    expect(brightness('#c9c9c9')).toBe(201);
    expect(textColorOn('#c9c9c9', 'title')).toBe(TEXT_BLACK);
  });

  it('gives white text at exactly 150 and black just above it for body text', () => {
    expect(brightness('#969696')).toBe(150);
    expect(textColorOn('#969696', 'body')).toBe(TEXT_WHITE);
    expect(textColorOn('979797', 'body')).toBe(TEXT_BLACK);
  });

  it('can differ between titles and body text on the same background', () => {
    // brightness 175: above the body threshold, not above the title one
    expect(textColorOn('#afafaf', 'body')).toBe(TEXT_BLACK);
    expect(textColorOn('#afafaf', 'title')).toBe(TEXT_WHITE);
    // pure green (149.685) is just under the body threshold
    expect(textColorOn('#00ff00', 'body')).toBe(TEXT_WHITE);
  });

  it('rejects an invalid background', () => {
    expect(() => textColorOn('#fff', 'title')).toThrow(RangeError);
    expect(() => brightness('white')).toThrow(HEX_COLOR_ERROR);
  });
});

describe('WCAG 2.1 relative luminance and contrast ratio', () => {
  it('runs from 0 (black) to 1 (white), with or without #', () => {
    expect(relativeLuminance('#000000')).toBe(0);
    expect(relativeLuminance('ffffff')).toBe(1);
    // Channel weights 0.2126, 0.7152, 0.0722 (linear light).
    expect(relativeLuminance('#ff0000')).toBeCloseTo(0.2126, 4);
    expect(relativeLuminance('#00ff00')).toBeCloseTo(0.7152, 4);
    expect(relativeLuminance('#0000ff')).toBeCloseTo(0.0722, 4);
    // sRGB is not linear: a mid grey is about a fifth as bright as white.
    expect(relativeLuminance('#808080')).toBeCloseTo(0.2159, 4);
    expect(() => relativeLuminance('#fff')).toThrow(RangeError);
  });

  it('gives 21:1 for black on white, 1:1 for a colour on itself, in either order', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBe(21);
    expect(contrastRatio('#ffffff', '#000000')).toBe(21);
    expect(contrastRatio('#f97316', '#f97316')).toBe(1);
    // Known values (WebAIM's contrast checker): #767676 is the lightest grey with 4.5:1 on white.
    expect(contrastRatio('#767676', '#ffffff')).toBeCloseTo(4.54, 2);
    expect(contrastRatio('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
    expect(contrastRatio('#ffffff', '#f97316')).toBeCloseTo(2.8, 2);
    expect(contrastRatio('#000000', '#f97316')).toBeCloseTo(7.49, 2);
  });
});

describe("SPEC.md §9's text colour, except where it is under WCAG 2.1 AA contrast (issue 21, decision 0011)", () => {
  it('requires 4.5:1 for titles as for body text (titles are not all large text)', () => {
    expect(MIN_TEXT_CONTRAST).toBe(4.5);
  });

  it("follows the spec's choice wherever it is readable", () => {
    for (const [background, kind] of [
      ['#ffffff', 'title'],
      ['#ffffff', 'body'],
      ['#000000', 'title'],
      ['#000000', 'body'],
      ['#111827', 'title'],
      ['#c9c9c9', 'title'],
      ['#979797', 'body'],
      ['#afafaf', 'body'],
    ] as const) {
      expect(readableTextColorOn(background, kind)).toBe(textColorOn(background, kind));
    }
  });

  it("puts black, not white, on orange #f97316 (Acme's primary): 7.5:1 instead of 2.8:1", () => {
    expect(textColorOn('#f97316', 'body')).toBe(TEXT_WHITE);
    expect(textColorOn('#f97316', 'title')).toBe(TEXT_WHITE);
    expect(readableTextColorOn('#f97316', 'body')).toBe(TEXT_BLACK);
    expect(readableTextColorOn('#f97316', 'title')).toBe(TEXT_BLACK);
  });

  it('at the spec thresholds, where white is about 3:1 or less, gives black', () => {
    // Title at exactly 200: white is 1.7:1.
    expect(textColorOn('#c8c8c8', 'title')).toBe(TEXT_WHITE);
    expect(readableTextColorOn('#c8c8c8', 'title')).toBe(TEXT_BLACK);
    // Body at exactly 150: white is 3.0:1.
    expect(textColorOn('#969696', 'body')).toBe(TEXT_WHITE);
    expect(readableTextColorOn('#969696', 'body')).toBe(TEXT_BLACK);
    // Pure green is under the body threshold by brightness, yet white on it is 1.4:1.
    expect(readableTextColorOn('#00ff00', 'body')).toBe(TEXT_BLACK);
    // Between the two thresholds the spec gives titles white (2.2:1 here): black for both kinds.
    expect(readableTextColorOn('#afafaf', 'title')).toBe(TEXT_BLACK);
  });

  it('switches at the 4.5:1 line: white stays on #767676 (4.54:1), black on #777777 (white 4.48:1)', () => {
    expect(readableTextColorOn('#767676', 'body')).toBe(TEXT_WHITE);
    expect(readableTextColorOn('#767676', 'title')).toBe(TEXT_WHITE);
    expect(readableTextColorOn('#777777', 'body')).toBe(TEXT_BLACK);
    expect(readableTextColorOn('#777777', 'title')).toBe(TEXT_BLACK);
  });

  it('always reaches 4.5:1, since black or white has at least √21 ≈ 4.58:1 on any colour', () => {
    // Every colour whose channels are multiples of 0x11 (4,096 of them).
    const steps = Array.from({ length: 16 }, (_, i) => (i * 0x11).toString(16).padStart(2, '0'));
    for (const r of steps)
      for (const g of steps)
        for (const b of steps)
          for (const kind of ['title', 'body'] as const) {
            const c = `#${r}${g}${b}`;
            expect(contrastRatio(readableTextColorOn(c, kind), c)).toBeGreaterThanOrEqual(MIN_TEXT_CONTRAST);
          }
  });

  it('rejects an invalid background', () => {
    expect(() => readableTextColorOn('orange', 'body')).toThrow(RangeError);
  });
});
