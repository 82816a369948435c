import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { estimateRows, readCsv, readHeader } from './csv.ts';
import type { CsvRecord } from './csv.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'rally-csv-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function file(content: string | Buffer): string {
  const p = path.join(dir, `f${++n}.csv`);
  writeFileSync(p, content);
  return p;
}

async function all(p: string, opts: { maxRecordBytes?: number } = {}): Promise<CsvRecord[]> {
  const out: CsvRecord[] = [];
  for await (const r of readCsv(p, opts)) out.push(r);
  return out;
}

describe('readCsv', () => {
  it('reads a header and rows: BOM, escaped quotes, a quoted line break, CRLF, blank rows counted', async () => {
    const p = file('\ufeffemail,note\r\na@x.com,"say ""hi"""\r\n\r\nb@x.com,"two\r\nlines"\r\nc@x.com,\r\n');
    expect(await all(p)).toEqual([
      { row: 0, values: ['email', 'note'] },
      { row: 1, values: ['a@x.com', 'say "hi"'] },
      { row: 2, values: [''] },
      { row: 3, values: ['b@x.com', 'two\r\nlines'] },
      { row: 4, values: ['c@x.com', ''] },
    ]);
  });

  it('reports a record with broken quoting and goes on with the next one', async () => {
    const p = file('a,b\n1,2\n3,"bad"q\n5,6\n7,8\n');
    expect(await all(p)).toEqual([
      { row: 0, values: ['a', 'b'] },
      { row: 1, values: ['1', '2'] },
      { row: 2, problem: 'quoting' },
      { row: 3, values: ['5', '6'] },
      { row: 4, values: ['7', '8'] },
    ]);
  });

  it('an unclosed quote does not swallow the lines after it', async () => {
    const p = file('a,b\n1,2\n"open,3\n4,5\n6,7\n');
    expect(await all(p)).toEqual([
      { row: 0, values: ['a', 'b'] },
      { row: 1, values: ['1', '2'] },
      { row: 2, problem: 'quoting' },
      { row: 3, values: ['4', '5'] },
      { row: 4, values: ['6', '7'] },
    ]);
  });

  it('an unclosed quote met by a later quote is reported once, the lines in between read again', async () => {
    const p = file('a,b\n"open,1\n2,3\n"x",4\n');
    const records = await all(p);
    expect(records[1]).toEqual({ row: 1, problem: 'quoting' });
    expect(records).toContainEqual({ row: 2, values: ['2', '3'] });
    expect(records.at(-1)).toEqual({ row: 3, values: ['x', '4'] });
  });

  it('stops an unclosed quote at the record size limit instead of reading the whole file into it', async () => {
    const rows = Array.from({ length: 2000 }, (_, i) => `r${i},${i}`).join('\n');
    const p = file(`a,b\n"open,0\n${rows}\n`);
    const records = await all(p, { maxRecordBytes: 4096 });
    expect(records[1]).toEqual({ row: 1, problem: 'quoting' });
    expect(records.at(-1)).toEqual({ row: 2001, values: ['r1999', '1999'] });
    expect(records.filter((r) => 'problem' in r)).toHaveLength(1);
  });

  it('reports a row that is not UTF-8 and reads the rest', async () => {
    const p = file(
      Buffer.concat([
        Buffer.from('name,city\nAnn,Paris\nJos'),
        Buffer.from([0xe9]), // Latin-1 "é"
        Buffer.from(',Li\nZoë,Zürich\n'),
      ]),
    );
    expect(await all(p)).toEqual([
      { row: 0, values: ['name', 'city'] },
      { row: 1, values: ['Ann', 'Paris'] },
      { row: 2, problem: 'encoding' },
      { row: 3, values: ['Zoë', 'Zürich'] },
    ]);
  });

  it('ends a record at LF, CRLF or a lone CR alike, in one file', async () => {
    expect(await all(file('a,b\r\n1,2\n3,4\r5,"6\r\n7"\r\n'))).toEqual([
      { row: 0, values: ['a', 'b'] },
      { row: 1, values: ['1', '2'] },
      { row: 2, values: ['3', '4'] },
      { row: 3, values: ['5', '6\r\n7'] },
    ]);
  });

  it('reads records that straddle the 64 KiB read chunks, one of them split inside a UTF-8 character', async () => {
    const rows = (pad: number) => {
      const values: string[][] = [];
      for (let i = 1; i <= 6000; i++) {
        const note =
          i % 3 === 0 ? `line one ${i}\r\nline "two"` : `note ${'x'.repeat(i === 1 ? pad : i % 17)}`;
        values.push([String(i), note, i % 5 === 0 ? 'Zürich' : 'Paris']);
      }
      const text = [
        'id,note,city',
        ...values.map(([id, note, city]) => `${id},"${note!.replaceAll('"', '""')}",${city}`),
      ];
      return { values, bytes: Buffer.from(`${text.join('\r\n')}\r\n`) };
    };
    // Pad the first row so that the first chunk ends after the first byte of a "ü".
    const plain = rows(0).bytes;
    const chunk = 64 * 1024;
    const u = plain.lastIndexOf(Buffer.from('ü'), chunk - 1);
    const { values, bytes } = rows(chunk - 1 - u);
    expect(bytes.subarray(chunk - 1, chunk + 1).toString()).toBe('ü');
    expect(await all(file(bytes))).toEqual([
      { row: 0, values: ['id', 'note', 'city'] },
      ...values.map((v, i) => ({ row: i + 1, values: v })),
    ]);
  });

  it('finds a semicolon or tab delimiter from the header row', async () => {
    expect(await all(file('a;b\n"1;2";3\n'))).toEqual([
      { row: 0, values: ['a', 'b'] },
      { row: 1, values: ['1;2', '3'] },
    ]);
    expect(await all(file('a\tb\n1\t2\n'))).toEqual([
      { row: 0, values: ['a', 'b'] },
      { row: 1, values: ['1', '2'] },
    ]);
  });

  it('readHeader returns the header row; estimateRows counts data rows, not quoted line breaks', async () => {
    const p = file('email,note\na@x.com,"x\ny"\n\nb@x.com,z\n');
    expect(await readHeader(p)).toEqual({ row: 0, values: ['email', 'note'] });
    expect(await estimateRows(p)).toBe(2);
    expect(await readHeader(file(''))).toBeNull();
  });
});
