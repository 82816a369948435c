import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasPhoto, sortSalesReps } from './sales-reps.ts';
import type { SalesRepOrderFields } from './sales-reps.ts';

const rep = (first_name: string | null, photo_url: string | null = null, id = first_name ?? '') => ({
  id,
  first_name,
  photo_url,
});
const names = (reps: readonly { id: string }[]) => reps.map((r) => r.id);

describe('"Sales reps are listed with photos first, then without photos, each group sorted by first name." (SPEC.md §5)', () => {
  it('puts reps with photos first, each group by first name', () => {
    const sorted = sortSalesReps([
      rep('Zoe', 'https://cdn/z.png'),
      rep('Carl'),
      rep('Bea', 'https://cdn/b.png'),
      rep('Adam'),
      rep('Mia', 'https://cdn/m.png'),
    ]);
    expect(names(sorted)).toEqual(['Bea', 'Mia', 'Zoe', 'Adam', 'Carl']);
  });

  it('treats null, missing, empty and blank photo_url as no photo', () => {
    expect(hasPhoto({ photo_url: 'https://cdn/a.png' })).toBe(true);
    expect(hasPhoto({ photo_url: null })).toBe(false);
    expect(hasPhoto({})).toBe(false);
    expect(hasPhoto({ photo_url: '' })).toBe(false);
    expect(hasPhoto({ photo_url: '  ' })).toBe(false);
    const sorted = sortSalesReps([
      rep('Ann', ''),
      rep('Bob', ' '),
      { id: 'Cid', first_name: 'Cid' },
      rep('Dan', 'x.png'),
    ]);
    expect(names(sorted)).toEqual(['Dan', 'Ann', 'Bob', 'Cid']);
  });

  it('compares first names without regard to case', () => {
    expect(names(sortSalesReps([rep('bob'), rep('Alice'), rep('carol'), rep('Bea')]))).toEqual([
      'Alice',
      'Bea',
      'bob',
      'carol',
    ]);
  });

  it('compares in the locale, not by code unit (É sorts with E)', () => {
    expect(names(sortSalesReps([rep('Zed'), rep('Eve'), rep('Émile')]))).toEqual(['Émile', 'Eve', 'Zed']);
  });

  it('is stable: equal names keep their input order', () => {
    const sorted = sortSalesReps([rep('anna', null, '1'), rep('Anna', null, '2'), rep('ANNA', null, '3')]);
    expect(names(sorted)).toEqual(['1', '2', '3']);
    const reversed = sortSalesReps([rep('ANNA', null, '3'), rep('Anna', null, '2'), rep('anna', null, '1')]);
    expect(names(reversed)).toEqual(['3', '2', '1']);
  });

  it('puts a missing first name first in its group', () => {
    const sorted = sortSalesReps([rep('Al', 'a.png'), rep(null, 'n.png', 'no-name'), rep('Bo')]);
    expect(names(sorted)).toEqual(['no-name', 'Al', 'Bo']);
  });

  it("returns a new array, keeps the caller's objects and leaves the input alone", () => {
    const input = [rep('B'), rep('A')] as const;
    const sorted = sortSalesReps(input);
    expect(sorted).not.toBe(input);
    expect(names(input)).toEqual(['B', 'A']);
    expect(sorted[0]).toBe(input[1]);
    expect(sortSalesReps([])).toEqual([]);
  });

  it('always yields a permutation with every photo before every non-photo, names in order', () => {
    const collator = new Intl.Collator(undefined, { sensitivity: 'accent' });
    const repArb = fc.record({
      first_name: fc.option(fc.string({ maxLength: 6 })),
      photo_url: fc.option(fc.constantFrom('', ' ', 'a.png', 'b.png')),
    });
    fc.assert(
      fc.property(fc.array(repArb, { maxLength: 30 }), (reps: SalesRepOrderFields[]) => {
        const sorted = sortSalesReps(reps);
        expect(sorted).toHaveLength(reps.length);
        expect(new Set(sorted)).toEqual(new Set(reps));
        const firstWithout = sorted.findIndex((r) => !hasPhoto(r));
        if (firstWithout !== -1) expect(sorted.slice(firstWithout).every((r) => !hasPhoto(r))).toBe(true);
        for (let i = 1; i < sorted.length; i += 1) {
          const [a, b] = [sorted[i - 1]!, sorted[i]!];
          if (hasPhoto(a) === hasPhoto(b)) {
            expect(collator.compare(a.first_name ?? '', b.first_name ?? '')).toBeLessThanOrEqual(0);
          }
        }
      }),
    );
  });
});
