import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { safeCell, toCsv } from './csv-export.ts';

describe('CSV export (formula-injection safe)', () => {
  it.each(['=1+1', '+1', '-1+2', '@SUM(A1)', '\t=1', '\r=1', '=HYPERLINK("http://x","y")'])(
    'a text cell starting %j is prefixed with an apostrophe',
    (text) => {
      expect(safeCell(text)).toBe(`'${text}`);
    },
  );

  it('leaves ordinary text, numbers and negative numbers alone', () => {
    expect(safeCell('Acme = best')).toBe('Acme = best');
    expect(safeCell(-1250)).toBe(-1250);
    expect(safeCell(null)).toBe('');
    expect(safeCell(true)).toBe('yes');
  });

  it('quotes commas, quotes and newlines so the file reads back to the same cells', () => {
    const rows = [
      { name: 'Smith, "Jo"\nJr', amount: 12.5 },
      { name: '=cmd|calc', amount: -3 },
    ];
    const csv = toCsv(
      [
        { header: 'Name', value: (r: (typeof rows)[number]) => r.name },
        { header: 'Amount', value: (r: (typeof rows)[number]) => r.amount },
      ],
      rows,
    );
    expect(parse(csv)).toEqual([
      ['Name', 'Amount'],
      ['Smith, "Jo"\nJr', '12.5'],
      ["'=cmd|calc", '-3'],
    ]);
  });
});
