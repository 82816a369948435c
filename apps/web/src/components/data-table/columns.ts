import type { ReactNode } from 'react';

export type SortOrder = 'asc' | 'desc';
export type SortState = { by: string; order: SortOrder };

/** A column of a DataTable: how a row's cell looks, what it exports, and how it sorts. */
export type DataColumn<T> = {
  id: string;
  label: string;
  render: (row: T) => ReactNode;
  /** The cell's value in the CSV export (text or number, made formula-safe on the way out). */
  csv: (row: T) => unknown;
  align?: 'right';
  /** A key column (name, stage, amount): always shown, and the ones a phone shows at first. */
  key?: boolean;
  /** Hidden until chosen in the column chooser. */
  hidden?: boolean;
  /** false: this column has no order (said in its header's title). */
  sortable?: boolean;
  /** For a table sorted in the browser: the value to order by (default: the CSV value). */
  sortValue?: (row: T) => string | number | null;
};

/** The columns shown when nothing is remembered: on a phone the key ones, else all but the hidden. */
export function defaultShown<T>(columns: readonly DataColumn<T>[], phone: boolean): string[] {
  const keys = columns.filter((c) => c.key).map((c) => c.id);
  if (phone && keys.length > 0) return keys;
  return columns.filter((c) => !c.hidden).map((c) => c.id);
}

const compare = (a: string | number | null, b: string | number | null): number => {
  if (a === b) return 0;
  if (a === null || a === '') return 1;
  if (b === null || b === '') return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), undefined, { numeric: true, sensitivity: 'base' });
};

/** Rows ordered by one column in the browser (tables whose rows are all loaded); empty values last. */
export function sortRows<T>(rows: readonly T[], column: DataColumn<T> | undefined, order: SortOrder): T[] {
  if (!column || column.sortable === false) return [...rows];
  const value = (r: T) => {
    const v = column.sortValue ? column.sortValue(r) : column.csv(r);
    return typeof v === 'number' || typeof v === 'string' ? v : v == null ? null : String(v);
  };
  return rows
    .map((row, i) => ({ row, i, v: value(row) }))
    .sort((x, y) => {
      if (x.v === null || x.v === '' || y.v === null || y.v === '') return compare(x.v, y.v) || x.i - y.i;
      return (order === 'asc' ? compare(x.v, y.v) : compare(y.v, x.v)) || x.i - y.i;
    })
    .map((x) => x.row);
}

/**
 * The sort after a click on a column's header: the other way on the sorted column, else the
 * column's natural order (numbers, right-aligned, descending; text ascending).
 */
export function nextSort<T>(
  current: SortState | undefined,
  by: string,
  columns: readonly DataColumn<T>[],
): SortState {
  if (current?.by === by) return { by, order: current.order === 'asc' ? 'desc' : 'asc' };
  return { by, order: columns.find((c) => c.id === by)?.align === 'right' ? 'desc' : 'asc' };
}

/**
 * A table paged by the server sorts only by the columns its endpoint orders in SQL (`allowed`, the
 * report's allow-list); with every row on one page, every column sorts in the browser.
 */
export function sortableOn<T>(
  columns: readonly DataColumn<T>[],
  allowed: readonly string[] | null,
): DataColumn<T>[] {
  return allowed === null
    ? [...columns]
    : columns.map((c) => (allowed.includes(c.id) ? c : { ...c, sortable: false }));
}

/**
 * The sort of a report table paged by the server: while one page holds every row the table sorts
 * in the browser (no sort props); across pages a header asks the server (`setSort`) and only the
 * columns of its allow-list sort, so a page is never ordered among others it cannot see.
 */
export function pagedSort<T>(
  columns: readonly DataColumn<T>[],
  paged: { total: number; pageSize: number; allowed: readonly string[] },
  sort: SortState | undefined,
  setSort: (next: SortState) => void,
): { columns: DataColumn<T>[]; sort?: SortState; onSort?: (by: string) => void } {
  if (paged.total <= paged.pageSize) return { columns: [...columns] };
  return {
    columns: sortableOn(columns, paged.allowed),
    ...(sort ? { sort } : {}),
    onSort: (by) => setSort(nextSort(sort, by, columns)),
  };
}
