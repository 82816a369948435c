import { useMemo, useState } from 'react';
import type { ReactNode } from 'react';
import { Button, Checkbox, Group, Paper, Table, Text, UnstyledButton } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconChevronDown, IconChevronUp, IconDownload, IconSelector } from '@tabler/icons-react';
import { defaultShown, nextSort, sortRows } from './columns.ts';
import type { DataColumn, SortState } from './columns.ts';
import { saveCsv, tableCsv } from './download-csv.ts';
import { ColumnChooser, MAX_SAVED_VIEWS, SavedViews, isSavedViewList } from './table-menus.tsx';
import type { SavedView } from './table-menus.tsx';
import { isStringList, useTablePref } from './table-prefs.ts';

export type DataTableProps<T> = {
  /** Names what is remembered (shown columns, saved views) for this table. */
  tableId: string;
  /** The table's accessible name. */
  label: string;
  rows: readonly T[];
  rowId: (row: T) => string;
  columns: readonly DataColumn<T>[];
  /** Sorted by the server (a paged table): the current sort and how to ask for another. */
  sort?: SortState;
  onSort?: (by: string) => void;
  /** Sorted in the browser (every row loaded): the order it starts in. */
  defaultSort?: SortState;
  /** Rows can be picked for the export and for `bulkActions`. */
  selectable?: boolean;
  bulkActions?: (selected: T[], clear: () => void) => ReactNode;
  /** Saved views: the table's state as a query string, and how to go back to one. */
  views?: { state: string; apply: (state: string) => void };
  /** The CSV file of what is shown. */
  exportName: string;
  /** Left of the toolbar (filters), hidden while rows are selected. */
  toolbarStart?: ReactNode;
  /** Right of the toolbar (the server's exports of every row). */
  toolbarEnd?: ReactNode;
  rowName?: (row: T) => string;
  onRowClick?: (row: T) => void;
  /** Desktop width under which the table scrolls sideways; a phone shows the key columns first. */
  minWidth?: number;
  loading?: boolean;
  verticalSpacing?: 'xs' | 'sm' | number;
};

/** The phone breakpoint (Mantine's sm): under it a table opens on its key columns. */
export const PHONE_QUERY = '(max-width: 48em)';

/**
 * The one table of the app's lists and reports (issue 42 item 11): sort on every column, rows picked
 * for bulk actions, a column chooser, saved views, and a CSV of what is shown.
 */
export function DataTable<T>(props: DataTableProps<T>) {
  const { columns, rows, rowId, tableId } = props;
  const phone = useMediaQuery(PHONE_QUERY) ?? false;
  const profile = phone ? 'phone' : 'desktop';
  const [remembered, setRemembered] = useTablePref<string[] | null>(
    tableId,
    `columns.${profile}`,
    null,
    (v): v is string[] | null => v === null || isStringList(v),
  );
  const shownIds = remembered ?? defaultShown(columns, phone);
  const shown = columns.filter((c) => c.key || shownIds.includes(c.id));

  const [localSort, setLocalSort] = useState<SortState | undefined>(props.defaultSort);
  const sort = props.onSort ? props.sort : localSort;
  const ordered = useMemo(
    () =>
      props.onSort || !localSort
        ? rows
        : sortRows(
            rows,
            columns.find((c) => c.id === localSort.by),
            localSort.order,
          ),
    [rows, columns, localSort, props.onSort],
  );
  const onSort = (by: string) => {
    if (props.onSort) return props.onSort(by);
    setLocalSort((s) => nextSort(s, by, columns));
  };

  // The picked rows among those on screen (a new page or filter leaves the others behind).
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const selected = props.selectable ? ordered.filter((r) => picked.has(rowId(r))) : [];
  const allPicked = ordered.length > 0 && selected.length === ordered.length;
  const clear = () => setPicked(new Set());
  const toggle = (id: string) =>
    setPicked((p) => {
      const next = new Set(p);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  const [views, setViews] = useTablePref<SavedView[]>(tableId, 'views', [], isSavedViewList);
  const exportRows = selected.length > 0 ? selected : ordered;

  return (
    <Paper withBorder radius="md" style={{ opacity: props.loading ? 0.7 : 1, transition: 'opacity 150ms' }}>
      <Group justify="space-between" gap="xs" p="xs" wrap="wrap" style={{ rowGap: 8 }}>
        {selected.length > 0 ? (
          <Group gap="xs" wrap="wrap" role="group" aria-label="Selected rows">
            <Text size="sm" fw={600}>
              {selected.length} selected
            </Text>
            {props.bulkActions?.(selected, clear)}
            <Button variant="subtle" size="xs" onClick={clear}>
              Clear selection
            </Button>
          </Group>
        ) : (
          <Group gap="xs" wrap="wrap">
            {props.toolbarStart}
          </Group>
        )}
        <Group gap="xs" wrap="wrap" justify="flex-end">
          {props.views && (
            <SavedViews
              views={views}
              current={props.views.state}
              onApply={(v) => props.views?.apply(v.state)}
              onSave={(name) =>
                setViews(
                  [...views.filter((v) => v.name !== name), { name, state: props.views?.state ?? '' }].slice(
                    -MAX_SAVED_VIEWS,
                  ),
                )
              }
              onDelete={(name) => setViews(views.filter((v) => v.name !== name))}
            />
          )}
          <ColumnChooser
            columns={columns}
            shown={shown.map((c) => c.id)}
            onChange={setRemembered}
            onReset={() => setRemembered(null)}
          />
          <Button
            variant="default"
            size="xs"
            leftSection={<IconDownload size={14} />}
            onClick={() => saveCsv(tableCsv(shown, exportRows), props.exportName)}
          >
            {selected.length > 0 ? `Export ${selected.length} selected` : 'Export shown (CSV)'}
          </Button>
          {props.toolbarEnd}
        </Group>
      </Group>
      <Table.ScrollContainer minWidth={phone ? 0 : (props.minWidth ?? 0)} type="native">
        <Table
          highlightOnHover
          verticalSpacing={props.verticalSpacing ?? 'sm'}
          aria-label={props.label}
          style={{ borderTop: '1px solid var(--mantine-color-default-border)' }}
        >
          <Table.Thead>
            <Table.Tr>
              {props.selectable && (
                <Table.Th w={36}>
                  <Checkbox
                    size="xs"
                    aria-label="Select every row shown"
                    checked={allPicked}
                    indeterminate={selected.length > 0 && !allPicked}
                    onChange={() => (allPicked ? clear() : setPicked(new Set(ordered.map(rowId))))}
                  />
                </Table.Th>
              )}
              {shown.map((c) => (
                <SortHeader key={c.id} column={c} sort={sort} onSort={onSort} />
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {ordered.map((row) => {
              const id = rowId(row);
              return (
                <Table.Tr
                  key={id}
                  onClick={props.onRowClick ? () => props.onRowClick?.(row) : undefined}
                  style={props.onRowClick ? { cursor: 'pointer' } : undefined}
                >
                  {props.selectable && (
                    <Table.Td onClick={(e) => e.stopPropagation()}>
                      <Checkbox
                        size="xs"
                        aria-label={`Select ${props.rowName?.(row) ?? 'row'}`}
                        checked={picked.has(id)}
                        onChange={() => toggle(id)}
                      />
                    </Table.Td>
                  )}
                  {shown.map((c) => (
                    <Table.Td key={c.id} ta={c.align}>
                      {c.render(row)}
                    </Table.Td>
                  ))}
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}

function SortHeader<T>({
  column,
  sort,
  onSort,
}: {
  column: DataColumn<T>;
  sort: SortState | undefined;
  onSort: (by: string) => void;
}) {
  if (column.sortable === false)
    return (
      <Table.Th ta={column.align} style={{ whiteSpace: 'nowrap' }}>
        {column.label}
      </Table.Th>
    );
  const active = sort?.by === column.id;
  const Icon = !active ? IconSelector : sort.order === 'asc' ? IconChevronUp : IconChevronDown;
  return (
    <Table.Th
      aria-sort={active ? (sort.order === 'asc' ? 'ascending' : 'descending') : 'none'}
      ta={column.align}
      style={{ whiteSpace: 'nowrap' }}
    >
      <UnstyledButton onClick={() => onSort(column.id)} aria-label={`Sort by ${column.label.toLowerCase()}`}>
        <Group gap={4} wrap="nowrap" justify={column.align === 'right' ? 'flex-end' : 'flex-start'}>
          <Text size="sm" fw={600}>
            {column.label}
          </Text>
          <Icon size={14} stroke={1.5} />
        </Group>
      </UnstyledButton>
    </Table.Th>
  );
}
