import { stringify } from 'csv-stringify/sync';
import type { FastifyReply } from 'fastify';

/**
 * The one way CSV leaves the product. A spreadsheet runs a cell that starts with = + - @ (or a tab or
 * carriage return before one) as a formula — `=HYPERLINK(...)` in a prospect's name would run on the
 * reader's machine — so such text cells get a leading apostrophe, as OWASP advises. Numbers are
 * written as numbers (a negative amount stays a number).
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export function safeCell(value: unknown): string | number {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'bigint') return Number(value);
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  const text = value instanceof Date ? value.toISOString() : String(value);
  return FORMULA_START.test(text) ? `'${text}` : text;
}

export type CsvColumn<T> = { header: string; value: (row: T) => unknown };

export function toCsv<T>(columns: CsvColumn<T>[], rows: readonly T[]): string {
  return stringify(
    [columns.map((c) => safeCell(c.header)), ...rows.map((r) => columns.map((c) => safeCell(c.value(r))))],
    { record_delimiter: '\r\n' },
  );
}

/** Sends CSV as a download named `filename` (ASCII letters, digits, dots, dashes). */
export function sendCsv<T>(
  reply: FastifyReply,
  filename: string,
  columns: CsvColumn<T>[],
  rows: readonly T[],
) {
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename.replace(/[^\w.-]/g, '_')}"`)
    .header('cache-control', 'no-store')
    .send(toCsv(columns, rows));
}
