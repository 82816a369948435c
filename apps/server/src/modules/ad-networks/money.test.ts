import { describe, expect, it } from 'vitest';
import { majorToMinor, minorDigits } from './money.ts';

describe('network amounts in minor units (Meta insights spend is decimal text in the account currency)', () => {
  it('uses the currency’s own minor digits', () => {
    expect(minorDigits('USD')).toBe(2);
    expect(minorDigits('JPY')).toBe(0);
    expect(minorDigits('KWD')).toBe(3);
    expect(minorDigits(null)).toBe(2);
    expect(minorDigits('not a currency')).toBe(2);
  });

  it('turns decimal text into whole minor units without floating-point error', () => {
    // The Insights page's own example: "spend": "5339.5".
    expect(majorToMinor('5339.5', 'USD')).toBe(533_950);
    expect(majorToMinor('0.07', 'USD')).toBe(7);
    expect(majorToMinor('1.15', 'USD')).toBe(115); // 1.15 * 100 is 114.99999999999999 in floats
    expect(majorToMinor('1000', 'JPY')).toBe(1000);
    expect(majorToMinor('1.2345', 'KWD')).toBe(1235);
    expect(majorToMinor('2.005', 'USD')).toBe(201);
    expect(majorToMinor(undefined, 'USD')).toBe(0);
    expect(majorToMinor('-1', 'USD')).toBeNull();
    expect(majorToMinor('1e3', 'USD')).toBeNull();
    expect(majorToMinor('abc', 'USD')).toBeNull();
  });
});
