import { describe, expect, it } from 'vitest';
import { rangeOfDates, rangeOfDays } from './period-picker.tsx';

describe('report periods in epoch seconds (SPEC.md §9)', () => {
  it('a custom range is its first day from midnight to the midnight after its last day (local)', () => {
    const r = rangeOfDates('2026-10-05', '2026-10-20');
    expect(r.from).toBe(new Date(2026, 9, 5).getTime() / 1000);
    expect(r.to).toBe(new Date(2026, 9, 21).getTime() / 1000);
    const one = rangeOfDates('2026-12-31', '2026-12-31');
    expect(one.to).toBe(new Date(2027, 0, 1).getTime() / 1000);
  });
  it('a preset ends at the end of today and goes back its days', () => {
    const now = new Date(2026, 10, 25, 14, 30);
    const r = rangeOfDays(30, now);
    expect(r.to).toBe(new Date(2026, 10, 26).getTime() / 1000);
    expect(r.to - r.from).toBe(30 * 86_400);
  });
});
