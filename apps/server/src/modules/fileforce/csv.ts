import { isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { parse } from 'csv-parse';
import type { CsvError } from 'csv-parse';

/**
 * Streaming CSV reading for the file import (ARCHITECTURE.md §7: "streamed CSV"). The file is read
 * in chunks, never whole. Each record comes with its row number (0 = the header row, 1 = the first
 * data row; blank rows count, so row N is line N + 1 of a spreadsheet) and either its values or the
 * problem that made it unreadable, so one bad record never stops the rest of the file.
 */

export type CsvProblem = 'quoting' | 'encoding';
export type CsvRecord = { row: number; values: string[] } | { row: number; problem: CsvProblem };

/** A record longer than this is an unclosed quote swallowing the file, not data. */
const MAX_RECORD_BYTES = 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;
const DELIMITERS = [',', ';', '\t', '|'] as const;
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const QUOTE = 0x22;

export type CsvReadOptions = { delimiter?: string; maxRecordBytes?: number };

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * Where the text starts (after a UTF-8 byte order mark) and the delimiter: the candidate seen most
 * often outside quotes in the first line, comma when none is (spreadsheets in some locales save CSV
 * with semicolons).
 */
export async function sniff(filePath: string): Promise<{ start: number; delimiter: string }> {
  const handle = await open(filePath, 'r');
  try {
    const buf = Buffer.alloc(CHUNK_BYTES);
    const { bytesRead } = await handle.read(buf, 0, CHUNK_BYTES, 0);
    // Skipped here rather than by csv-parse, whose BOM handling switches it to decoding strings.
    const start = bytesRead >= 3 && buf.subarray(0, 3).equals(UTF8_BOM) ? 3 : 0;
    const counts = new Map<number, number>();
    let quoted = false;
    for (const b of buf.subarray(start, bytesRead)) {
      if (b === QUOTE) quoted = !quoted;
      else if (!quoted && (b === NEWLINE || b === CARRIAGE_RETURN)) break;
      else if (!quoted) counts.set(b, (counts.get(b) ?? 0) + 1);
    }
    let best: string = ',';
    let bestCount = 0;
    for (const d of DELIMITERS) {
      const n = counts.get(d.charCodeAt(0)) ?? 0;
      if (n > bestCount) [best, bestCount] = [d, n];
    }
    return { start, delimiter: best };
  } finally {
    await handle.close();
  }
}

/** The byte just after the line that starts at or after `from` ends; null at the end of the file. */
async function nextLineStart(filePath: string, from: number): Promise<number | null> {
  const handle = await open(filePath, 'r');
  try {
    const buf = Buffer.alloc(CHUNK_BYTES);
    for (let at = from; ;) {
      const { bytesRead } = await handle.read(buf, 0, CHUNK_BYTES, at);
      if (bytesRead === 0) return null;
      for (let i = 0; i < bytesRead; i++) {
        const b = buf[i];
        if (b === NEWLINE) return at + i + 1;
        if (b === CARRIAGE_RETURN) {
          if (i + 1 < bytesRead) return at + i + (buf[i + 1] === NEWLINE ? 2 : 1);
          const next = Buffer.alloc(1);
          const more = await handle.read(next, 0, 1, at + i + 1);
          return at + i + (more.bytesRead === 1 && next[0] === NEWLINE ? 2 : 1);
        }
      }
      at += bytesRead;
    }
  } finally {
    await handle.close();
  }
}

type Parsed = { fields: Buffer[]; end: number };

/**
 * Every record of the file, in order. csv-parse does the tokenising; when it meets broken quoting it
 * cannot find the next record by itself (it stays inside the bad quote and swallows the lines after
 * it), so this reader reports that record and starts a fresh parser on the line after the one where
 * the bad record began. Values are checked to be UTF-8 per record, so a row saved in another
 * encoding is reported and the rest of the file still reads.
 */
export async function* readCsv(filePath: string, opts: CsvReadOptions = {}): AsyncGenerator<CsvRecord> {
  const sniffed = await sniff(filePath);
  const delimiter = opts.delimiter ?? sniffed.delimiter;
  let offset = sniffed.start;
  let row = -1;
  for (;;) {
    // End (relative to `offset`) of the last record read well: a broken record starts right there.
    let lastEnd = 0;
    let broken = false;
    const input = createReadStream(filePath, { start: offset, highWaterMark: CHUNK_BYTES });
    const stop = () => {
      input.unpipe(parser);
      input.destroy();
      parser.end();
    };
    const parser = parse({
      // Buffers, not strings: the UTF-8 check below needs the bytes.
      encoding: null,
      bom: false,
      delimiter,
      relax_column_count: true,
      skip_records_with_error: true,
      max_record_size: opts.maxRecordBytes ?? MAX_RECORD_BYTES,
      on_skip: () => {
        if (broken) return;
        broken = true;
        // Not from inside the parser's own callback.
        setImmediate(stop);
      },
      on_record: (record, context) => {
        if (broken) return null;
        lastEnd = context.bytes;
        return { fields: record as unknown as Buffer[], end: context.bytes } as unknown as string[];
      },
    });
    input.on('error', (err) => parser.destroy(err));
    input.pipe(parser);
    try {
      for await (const item of parser as AsyncIterable<Parsed>) {
        row += 1;
        if (!item.fields.every((f) => isUtf8(f))) {
          yield { row, problem: 'encoding' };
          continue;
        }
        yield { row, values: item.fields.map((f) => f.toString('utf8')) };
      }
    } catch (err) {
      // A parser error the skip option did not catch is still the record's quoting.
      if (!isCsvError(err)) throw err;
      broken = true;
    } finally {
      input.destroy();
      parser.destroy();
    }
    if (!broken) return;
    row += 1;
    yield { row, problem: 'quoting' };
    const next = await nextLineStart(filePath, offset + lastEnd);
    if (next === null) return;
    offset = next;
  }
}

function isCsvError(err: unknown): err is CsvError {
  const code: unknown = err instanceof Error ? (err as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('CSV_');
}

/** The header row, read alone (the rest of the file is not read). */
export async function readHeader(filePath: string): Promise<CsvRecord | null> {
  const records = readCsv(filePath);
  try {
    const first = await records.next();
    return first.done ? null : first.value;
  } finally {
    await records.return(undefined);
  }
}

/**
 * Data rows (non-blank lines outside quotes, less the header) by a fast byte scan, for the progress
 * bar before an import has read the file; the import replaces it with the exact count at the end.
 */
export async function estimateRows(filePath: string): Promise<number> {
  let quoted = false;
  let lineHasText = false;
  let lines = 0;
  for await (const chunk of createReadStream(filePath, {
    highWaterMark: CHUNK_BYTES,
  }) as AsyncIterable<Buffer>) {
    for (const b of chunk) {
      if (b === QUOTE) {
        quoted = !quoted;
        lineHasText = true;
      } else if (!quoted && (b === NEWLINE || b === CARRIAGE_RETURN)) {
        if (lineHasText) lines++;
        lineHasText = false;
      } else if (b > 0x20) {
        lineHasText = true;
      }
    }
  }
  if (lineHasText) lines++;
  return Math.max(0, lines - 1);
}
