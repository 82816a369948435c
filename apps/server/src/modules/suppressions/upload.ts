import { parse } from 'csv-parse/sync';
import { SUPPRESSION_UPLOAD_MAX, suppressionEmail } from '@rally/shared/schemas/suppressions';

export type ParsedUpload =
  { emails: string[]; invalid: { line: number; value: string }[] } | { error: string };

const HEADER = /^\s*e-?mail(\s*address)?\s*$/i;

/**
 * The addresses of an uploaded CSV: the column headed `email` (or `e-mail`, `email address`) when
 * the first row has one, else the first column of every row. A byte-order mark and blank lines are
 * skipped; cells that are not an address are reported with their line number.
 */
export function addressesOfCsv(text: string): ParsedUpload {
  let rows: string[][];
  try {
    rows = parse(text.replace(/^\uFEFF/, ''), {
      relax_column_count: true,
      skip_empty_lines: true,
      trim: true,
    }) as string[][];
  } catch (err) {
    return { error: `is not a readable CSV file (${(err as Error).message})` };
  }
  if (rows.length === 0) return { error: 'is empty: put one e-mail address on each line' };
  const headerAt = (rows[0] ?? []).findIndex((cell) => HEADER.test(cell));
  const column = headerAt >= 0 ? headerAt : 0;
  const body = headerAt >= 0 ? rows.slice(1) : rows;
  const first = headerAt >= 0 ? 2 : 1;
  if (body.length > SUPPRESSION_UPLOAD_MAX) {
    return { error: `has ${body.length} rows; upload at most ${SUPPRESSION_UPLOAD_MAX} at a time` };
  }
  const emails: string[] = [];
  const invalid: { line: number; value: string }[] = [];
  body.forEach((row, i) => {
    const cell = row[column] ?? '';
    const ok = suppressionEmail.safeParse(cell);
    if (ok.success) emails.push(ok.data);
    else invalid.push({ line: i + first, value: cell.slice(0, 100) });
  });
  return { emails, invalid };
}
