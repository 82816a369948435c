import { rm } from 'node:fs/promises';
import { FILEFORCE_FIELDS } from '@rally/shared/schemas/fileforce';
import type { CsvColumn } from '../../lib/csv-export.ts';
import { readCsv } from './csv.ts';
import { clientCadenceIds } from './repository.ts';
import type { FileImportRow } from './repository.ts';
import { createRowValidator } from './rows.ts';
import { localCopy } from './service.ts';
import type { FileforceDeps } from './service.ts';

/** A row of the uploaded file that the import skipped: its number, what is wrong, its cells as written. */
export type SkippedRow = { row: number; problems: string; values: readonly string[] };

/** Rows handed to the CSV writer at a time. */
const PAGE_ROWS = 500;

/**
 * The columns of the skipped-rows file: Row and Problem, then the file's own columns, so a person
 * fixes the cells and uploads the file again (issue 42 item 15). Every cell goes through the one CSV
 * writer (lib/csv-export.ts), which defuses a cell that a spreadsheet would run as a formula.
 */
export function skippedColumns(r: FileImportRow): CsvColumn<SkippedRow>[] {
  return [
    { header: 'Row', value: (s) => s.row },
    { header: 'Problem', value: (s) => s.problems },
    ...r.columns.map((header, i) => ({
      header: header || `Column ${i + 1}`,
      value: (s: SkippedRow) => s.values[i] ?? '',
    })),
  ];
}

/**
 * Reads the import's file again and yields, page by page, every row its mapping refuses (every one,
 * not only the first 1000 the report lists), with the reasons as the report words them. The file is
 * read from the upload storage into a scratch copy, removed when the reading ends or is abandoned.
 */
export async function* skippedRows(deps: FileforceDeps, r: FileImportRow): AsyncGenerator<SkippedRow[]> {
  const validate = createRowValidator(r.kind, r.columns, r.mapping, {
    cadenceIds: await clientCadenceIds(deps.db, r.clientId),
  });
  const labels = new Map(FILEFORCE_FIELDS[r.kind].map((f) => [f.name, f.label]));
  const label = (field: string) => labels.get(field) ?? field;
  const filePath = await localCopy(deps, r);
  try {
    let page: SkippedRow[] = [];
    for await (const record of readCsv(filePath)) {
      if (record.row === 0) continue;
      const result = validate(record);
      if (!result || result.ok) continue;
      page.push({
        row: record.row,
        problems: result.errors
          .map((e) => (e.field === 'row' ? e.reason : `${label(e.field)}: ${e.reason}`))
          .join('; '),
        values: 'values' in record ? record.values : [],
      });
      if (page.length >= PAGE_ROWS) {
        yield page;
        page = [];
      }
    }
    if (page.length) yield page;
  } finally {
    await rm(filePath, { force: true });
  }
}
