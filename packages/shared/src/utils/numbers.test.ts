import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NUMBER_SUFFIXES, abbreviateNumber, formatCount, formatMultiple } from './numbers.ts';

describe('"Number abbreviation suffixes K, MM, B, T, P, E." (SPEC.md §9)', () => {
  it('uses the six suffixes in order', () => {
    expect(NUMBER_SUFFIXES).toEqual(['K', 'MM', 'B', 'T', 'P', 'E']);
  });

  it('leaves numbers under 1000 without a suffix', () => {
    expect(abbreviateNumber(0)).toBe('0');
    expect(abbreviateNumber(1)).toBe('1');
    expect(abbreviateNumber(999)).toBe('999');
    expect(abbreviateNumber(12.34)).toBe('12.3');
    expect(abbreviateNumber(0.05)).toBe('0.1');
  });

  it('switches to K at exactly 1000', () => {
    expect(abbreviateNumber(1000)).toBe('1K');
    expect(abbreviateNumber(1500)).toBe('1.5K');
    expect(abbreviateNumber(1234)).toBe('1.2K');
    expect(abbreviateNumber(1250)).toBe('1.3K');
  });

  it('uses each suffix at its power of a thousand', () => {
    expect(abbreviateNumber(2_000_000)).toBe('2MM');
    expect(abbreviateNumber(3_400_000_000)).toBe('3.4B');
    expect(abbreviateNumber(5e12)).toBe('5T');
    expect(abbreviateNumber(6.7e15)).toBe('6.7P');
    expect(abbreviateNumber(8e18)).toBe('8E');
  });

  it('drops a trailing .0 after rounding to one decimal', () => {
    expect(abbreviateNumber(1040)).toBe('1K');
    expect(abbreviateNumber(2_049_999)).toBe('2MM');
    expect(abbreviateNumber(999.96)).toBe('1K');
  });

  it('moves to the next suffix when rounding reaches 1000', () => {
    expect(abbreviateNumber(999_949)).toBe('999.9K');
    expect(abbreviateNumber(999_950)).toBe('1MM');
    expect(abbreviateNumber(999_950_000)).toBe('1B');
  });

  it('keeps growing past E, the last suffix', () => {
    expect(abbreviateNumber(1.5e21)).toBe('1500E');
  });

  it('keeps the sign of negative numbers and never prints -0', () => {
    expect(abbreviateNumber(-1500)).toBe('-1.5K');
    expect(abbreviateNumber(-999)).toBe('-999');
    expect(abbreviateNumber(-2_000_000)).toBe('-2MM');
    expect(abbreviateNumber(-1250)).toBe('-1.3K'); // half away from zero
    expect(abbreviateNumber(-0)).toBe('0');
    expect(abbreviateNumber(-0.04)).toBe('0');
  });

  it('rejects NaN and infinities', () => {
    expect(() => abbreviateNumber(Number.NaN)).toThrow(RangeError);
    expect(() => abbreviateNumber(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(() => abbreviateNumber(Number.NEGATIVE_INFINITY)).toThrow(RangeError);
  });

  it('is symmetric in sign and keeps the digits under 1000 for every suffix', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e20, max: 1e20, noNaN: true }), (n) => {
        const positive = abbreviateNumber(Math.abs(n));
        const label = abbreviateNumber(n);
        expect(label === positive || label === `-${positive}`).toBe(true);
        const match = /^(\d+(?:\.\d)?)(K|MM|B|T|P|E)?$/.exec(positive);
        expect(match, positive).not.toBeNull();
        const digits = Number(match![1]);
        expect(digits).toBeLessThan(1000);
        if (match![2] !== undefined) expect(digits).toBeGreaterThanOrEqual(1);
      }),
    );
  });
});

describe('formatCount: a whole count in the reader’s locale (issue 42 item 8)', () => {
  it('groups digits as the locale does and shows no fraction', () => {
    expect(formatCount(1234, 'en-US')).toBe('1,234');
    expect(formatCount(1234, 'de-DE')).toBe('1.234');
    expect(formatCount(7, 'en-US')).toBe('7');
    expect(formatCount(1234.6, 'en-US')).toBe('1,235');
  });
});

describe('formatMultiple: a multiple abbreviated like every number (issue 42 item 8)', () => {
  it('reads 11.1K×, not 11116.6×', () => {
    expect(formatMultiple(11116.6)).toBe('11.1K×');
    expect(formatMultiple(2.25)).toBe('2.3×');
    expect(formatMultiple(null)).toBe('—');
  });
});
