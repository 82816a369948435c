import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { FastifyReply } from 'fastify';

/**
 * The one way CSV leaves the product. A spreadsheet runs a cell that starts with = + - @ as a formula
 * — `=HYPERLINK(...)` in a prospect's name would run on the reader's machine — so such text cells get
 * a leading apostrophe, as OWASP advises. Spreadsheets skip what a reader cannot see before the sign
 * (spaces, tabs, line breaks, control characters, zero-width and other invisible characters such as
 * U+200B or a byte-order mark) and some read the full-width and small forms (＝ ＋ － ＠, ﹦ ﹢ ﹣ ﹫)
 * as the ASCII ones, so those count too. Numbers are written as numbers (a negative amount stays a
 * number).
 */
// A leading tab or carriage return always (OWASP's list); before a sign: Cc controls (tab, CR, LF…), Cf format characters (U+200B-U+200F, U+2060-U+2064,
// U+FEFF, U+00AD…), Z space separators (NBSP, U+3000…), and the blank letters that draw nothing.
const FORMULA_START =
  /^(?:[\t\r]|[\p{Cc}\p{Cf}\p{Z}\s\u115F\u1160\u2800\u3164\uFFA0]*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20\uFE66\uFE62\uFE63\uFE6B])/u;

export function safeCell(value: unknown): string | number {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'bigint') return Number(value);
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  const text = value instanceof Date ? value.toISOString() : String(value);
  return FORMULA_START.test(text) ? `'${text}` : text;
}

export type CsvColumn<T> = { header: string; value: (row: T) => unknown };

const csvLines = (records: (string | number)[][]) => stringify(records, { record_delimiter: '\r\n' });

export function toCsv<T>(columns: CsvColumn<T>[], rows: readonly T[]): string {
  return csvLines([
    columns.map((c) => safeCell(c.header)),
    ...rows.map((r) => columns.map((c) => safeCell(c.value(r)))),
  ]);
}

function asDownload(reply: FastifyReply, filename: string): FastifyReply {
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename.replace(/[^\w.-]/g, '_')}"`)
    .header('cache-control', 'no-store');
}

/** Sends CSV as a download named `filename` (ASCII letters, digits, dots, dashes). */
export function sendCsv<T>(
  reply: FastifyReply,
  filename: string,
  columns: CsvColumn<T>[],
  rows: readonly T[],
) {
  return asDownload(reply, filename).send(toCsv(columns, rows));
}

/** CSV text page by page: the header line, then each page's lines (one page in memory at a time). */
export async function* csvText<T>(
  columns: CsvColumn<T>[],
  pages: AsyncIterable<readonly T[]>,
): AsyncGenerator<string> {
  yield csvLines([columns.map((c) => safeCell(c.header))]);
  for await (const rows of pages) {
    if (rows.length) yield csvLines(rows.map((r) => columns.map((c) => safeCell(c.value(r)))));
  }
}

/**
 * Streams CSV as a download: the header line, then each page of rows as the database gives it, so
 * an export of a million rows holds one page in memory rather than the whole file.
 */
export function streamCsv<T>(
  reply: FastifyReply,
  filename: string,
  columns: CsvColumn<T>[],
  pages: AsyncIterable<readonly T[]>,
) {
  return asDownload(reply, filename).send(Readable.from(csvText(columns, pages)));
}

/** Streams CSV text written earlier by `csvText` (an export file's parts) as a download. */
export function streamCsvText(reply: FastifyReply, filename: string, parts: AsyncIterable<string>) {
  return asDownload(reply, filename).send(Readable.from(parts));
}
