export { DataTable, PHONE_QUERY } from './data-table.tsx';
export type { DataTableProps } from './data-table.tsx';
export { defaultShown, nextSort, pagedSort, sortRows, sortableOn } from './columns.ts';
export type { DataColumn, SortOrder, SortState } from './columns.ts';
export { saveCsv, tableCsv } from './download-csv.ts';
