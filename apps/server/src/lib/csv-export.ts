import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { FastifyReply } from 'fastify';
import { safeCsvCell } from '@rally/shared';

/**
 * The one way CSV leaves the server. Each cell goes through the shared safeCsvCell (formula injection:
 * a text cell starting with = + - @, after anything invisible, gets a leading apostrophe).
 */
export const safeCell = safeCsvCell;

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
