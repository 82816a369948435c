import { describe, expect, it } from 'vitest';
import {
  TEXT_BLACK,
  DEFAULT_COLORS,
  HEX_COLOR_ERROR,
  TEXT_BRIGHTNESS_THRESHOLD,
  TEXT_WHITE,
  brightness,
  hexColorSchema,
  isHexColor,
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
