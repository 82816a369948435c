import { describe, expect, it } from 'vitest';
import { createFirstRows } from './rows.ts';

describe('createFirstRows (duplicate rows of a file)', () => {
  it('answers the first row of every key, across table growth, and no row for a new key', () => {
    const first = createFirstRows();
    const n = 300_000;
    for (let row = 1; row <= n; row++) {
      expect(first.claim(`person${row}@example.com\u0000cadence ${row % 7}`, row)).toBeUndefined();
    }
    for (let row = 1; row <= n; row++) {
      const again = first.claim(`person${row}@example.com\u0000cadence ${row % 7}`, n + row);
      if (again !== row) expect(again).toBe(row);
    }
    expect(first.claim('someone-else@example.com\u0000', n + 1)).toBeUndefined();
    expect(first.claim('someone-else@example.com\u0000', n + 2)).toBe(n + 1);
  });
});
