import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeCell, toCsv } from './csv-export.ts';

/** What a spreadsheet skips before a formula's sign: nothing a reader sees (issue 37 item 11). */
const INVISIBLE = [
  ' ',
  '\t',
  '\r',
  '\n',
  '\v',
  '\f',
  '\u0000',
  '\u0001',
  '\u001f',
  '\u007f',
  '\u0085',
  '\u00a0',
  '\u00ad',
  '\u115f',
  '\u1160',
  '\u180e',
  '\u2000',
  '\u200a',
  '\u200b',
  '\u200c',
  '\u200d',
  '\u200e',
  '\u200f',
  '\u2028',
  '\u2029',
  '\u202a',
  '\u202e',
  '\u202f',
  '\u205f',
  '\u2060',
  '\u2061',
  '\u2064',
  '\u2066',
  '\u2069',
  '\u2800',
  '\u3000',
  '\u3164',
  '\ufeff',
  '\uffa0',
];
/** The signs a formula starts with, in ASCII, full-width and small forms. */
const SIGNS = [
  '=',
  '+',
  '-',
  '@',
  '\uff1d',
  '\uff0b',
  '\uff0d',
  '\uff20',
  '\ufe66',
  '\ufe62',
  '\ufe63',
  '\ufe6b',
];

describe('CSV export (formula-injection safe)', () => {
  it.each(['=1+1', '+1', '-1+2', '@SUM(A1)', '\t=1', '\r=1', '=HYPERLINK("http://x","y")'])(
    'a text cell starting %j is prefixed with an apostrophe',
    (text) => {
      expect(safeCell(text)).toBe(`'${text}`);
    },
  );

  it.each([
    ['a zero-width space', '\u200b=HYPERLINK("http://x","y")'],
    ['a zero-width non-joiner', '\u200c=1+1'],
    ['a zero-width joiner', '\u200d+1'],
    ['a word joiner', '\u2060-1+2'],
    ['a byte-order mark', '\ufeff@SUM(A1)'],
    ['a space', ' =1+1'],
    ['a no-break space', '\u00a0=1+1'],
    ['a line feed', '\n=1+1'],
    ['a control character', '\u0001=1+1'],
    ['several of them', ' \u200b\ufeff\t=1+1'],
    ['a full-width equals sign', '\uff1dHYPERLINK("http://x","y")'],
    ['a full-width plus sign', '\uff0b1'],
    ['a full-width hyphen-minus', '\uff0d1+2'],
    ['a full-width commercial at', '\uff20SUM(A1)'],
    ['a small equals sign', '\ufe66cmd|calc'],
    ['a zero-width space and a full-width equals sign', '\u200b\uff1d1+1'],
  ])('a text cell starting with %s before the sign is prefixed with an apostrophe', (_, text) => {
    expect(safeCell(text)).toBe(`'${text}`);
  });

  it('property: any run of invisible characters, then a sign, then anything, is neutralised', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...INVISIBLE), { maxLength: 8 }),
        fc.constantFrom(...SIGNS),
        fc.string({ maxLength: 20 }),
        (prefix, sign, rest) => {
          const text = `${prefix.join('')}${sign}${rest}`;
          expect(safeCell(text)).toBe(`'${text}`);
          // What the file reads back is that cell, apostrophe first.
          const csv = toCsv([{ header: 'Name', value: (r: string) => r }], [text]);
          expect((parse(csv, { relax_quotes: true }) as string[][])[1]![0]!.startsWith("'")).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('property: text that does not start with a sign, once invisible characters are skipped, is left as it is', () => {
    fc.assert(
      fc.property(
        // OWASP's list quotes a leading tab or carriage return whatever follows.
        fc
          .array(fc.constantFrom(...INVISIBLE), { maxLength: 4 })
          .filter((p) => !['\t', '\r'].includes(p[0]!)),
        fc.string({ minLength: 1, maxLength: 20 }).filter((s) => /^[\p{L}\p{N}"'(]/u.test(s)),
        (prefix, rest) => {
          const text = `${prefix.join('')}${rest}`;
          expect(safeCell(text)).toBe(text);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('leaves ordinary text, numbers and negative numbers alone', () => {
    expect(safeCell('Acme = best')).toBe('Acme = best');
    expect(safeCell('a\u200b=b')).toBe('a\u200b=b');
    expect(safeCell('Ｎａｍｅ＝1')).toBe('Ｎａｍｅ＝1');
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
