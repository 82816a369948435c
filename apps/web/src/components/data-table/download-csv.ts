import { csvFromRows } from '@rally/shared';
import type { DataColumn } from './columns.ts';

/** Hands CSV text to the browser as a download. */
export function saveCsv(text: string, filename: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  // Revoked after the click has handed the file over.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** What the table shows as CSV: the shown columns, in their order, of the given rows. */
export function tableCsv<T>(columns: readonly DataColumn<T>[], rows: readonly T[]): string {
  return csvFromRows(
    columns.map((c) => c.label),
    rows.map((r) => columns.map((c) => c.csv(r))),
  );
}
