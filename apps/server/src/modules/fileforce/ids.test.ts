import { describe, expect, it } from 'vitest';
import { timeOrderedId } from './service.ts';

describe('timeOrderedId (ids of the prospects and targets an import creates)', () => {
  it('makes version-7 UUIDs, all different, each sorting after the one before', () => {
    const before = Date.now();
    const ids = Array.from({ length: 20_000 }, () => timeOrderedId());
    expect(
      ids.filter((id) => !/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id)),
    ).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id, i) => i > 0 && id <= ids[i - 1]!)).toEqual([]);
    // The first 48 bits are the time in milliseconds.
    const ms = Number.parseInt(ids[0]!.replace('-', '').slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(Date.now());
  });
});
