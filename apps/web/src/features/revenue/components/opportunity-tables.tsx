import { useState } from 'react';
import { Anchor, Badge, Group, Pagination, Paper, SegmentedControl, Stack, Text } from '@mantine/core';
import { formatCount, formatDay } from '@rally/shared';
import { OPPORTUNITY_REPORT_SORTS, PROGRESSED_SORTS } from '@rally/shared/schemas/reports';
import type { OpportunityReportSort, ReportOpportunity, StageMove } from '@rally/shared/schemas/reports';
import { DataTable, pagedSort } from '../../../components/data-table/index.ts';
import type { DataColumn, SortState } from '../../../components/data-table/index.ts';
import { DownloadButton } from '../../../components/download-button.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { OPPORTUNITY_PAGE_SIZE, downloadExport, useOpportunities } from '../api/get-reports.ts';
import type { OpportunityFilter, Range } from '../api/get-reports.ts';
import { ExportFilesPanel, PrepareFileButton } from './export-files-panel.tsx';

export const fullMoney = (cents: number, currency: string) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency, maximumFractionDigits: 0 }).format(
    cents / 100,
  );
export const fileDay = (epoch: number) => new Date(epoch * 1000).toISOString().slice(0, 10);
const dollars = (cents: number) => (cents / 100).toFixed(2);

/** The pages of a report's table, with the number of its rows; nothing when one page holds them. */
export function Pager({
  total,
  page,
  onChange,
  noun,
}: {
  total: number;
  page: number;
  onChange: (page: number) => void;
  noun: string;
}) {
  if (total <= OPPORTUNITY_PAGE_SIZE) return null;
  return (
    <Group justify="space-between">
      <Text size="sm" c="dimmed">
        {formatCount(total)} {noun}
      </Text>
      <Pagination
        total={Math.ceil(total / OPPORTUNITY_PAGE_SIZE)}
        value={page}
        onChange={onChange}
        size="sm"
        getControlProps={(control) => ({ 'aria-label': `${control} page` })}
      />
    </Group>
  );
}

export function EmptyTable({ text }: { text: string }) {
  return (
    <Paper withBorder radius="md" p="xl">
      <Text c="dimmed" ta="center">
        {text}
      </Text>
    </Paper>
  );
}

const attribution = (o: ReportOpportunity) =>
  [o.generated_engaged_at && 'Generated', o.influenced && 'Influenced'].filter(Boolean).join(', ');

function opportunityColumns(onOpen: (id: string) => void): DataColumn<ReportOpportunity>[] {
  return [
    {
      id: 'name',
      label: 'Opportunity',
      key: true,
      csv: (o) => o.name,
      render: (o) => (
        <>
          <Anchor component="button" type="button" fw={600} ta="left" onClick={() => onOpen(o.id)}>
            {o.name}
          </Anchor>
          <Text size="xs" c="dimmed">
            {o.account_name}
          </Text>
        </>
      ),
    },
    {
      id: 'stage',
      label: 'Stage',
      key: true,
      csv: (o) => o.stage,
      render: (o) => (
        <Badge variant="light" color={o.is_won ? 'green' : o.is_closed ? 'gray' : 'blue'}>
          {o.stage}
        </Badge>
      ),
    },
    {
      id: 'created_at',
      label: 'Created',
      csv: (o) => o.created_at?.slice(0, 10) ?? '',
      render: (o) => (o.created_at ? formatDay(o.created_at) : '—'),
    },
    {
      id: 'attribution',
      label: 'Rally',
      csv: attribution,
      sortValue: (o) => (o.generated_engaged_at ? 2 : 0) + (o.influenced ? 1 : 0),
      render: (o) => (
        <Group gap={4}>
          {o.generated_engaged_at && (
            <Badge variant="light" color="indigo">
              Generated
            </Badge>
          )}
          {o.influenced && (
            <Badge variant="light" color="teal">
              Influenced
            </Badge>
          )}
          {!o.generated_engaged_at && !o.influenced && (
            <Text size="sm" c="dimmed">
              —
            </Text>
          )}
        </Group>
      ),
    },
    {
      id: 'amount',
      label: 'Amount',
      key: true,
      align: 'right',
      csv: (o) => dollars(o.amount_cents),
      sortValue: (o) => o.amount_cents,
      render: (o) => fullMoney(o.amount_cents, o.currency),
    },
  ];
}

/**
 * Opportunities in the shared table. With `sort` the server orders them (the paged opportunity
 * report); without, a page that holds every row sorts in the browser, and a table of several pages
 * keeps the server's order (its columns then have no sort).
 */
export function OpportunityTable({
  items,
  label,
  empty,
  onOpen,
  sort,
  onSort,
  views,
  allLoaded = true,
  toolbarStart,
  toolbarEnd,
}: {
  items: ReportOpportunity[];
  label: string;
  empty: string;
  onOpen: (id: string) => void;
  sort?: SortState;
  onSort?: (by: string) => void;
  views?: { state: string; apply: (state: string) => void };
  allLoaded?: boolean;
  toolbarStart?: React.ReactNode;
  toolbarEnd?: React.ReactNode;
}) {
  if (items.length === 0 && !toolbarStart) return <EmptyTable text={empty} />;
  const columns = opportunityColumns(onOpen).map((c) =>
    onSort || allLoaded ? c : { ...c, sortable: false as const },
  );
  return (
    <Stack gap="xs">
      <DataTable
        tableId={`opportunities.${label.toLowerCase().replace(/\W+/g, '-')}`}
        label={label}
        rows={items}
        rowId={(o) => o.id}
        rowName={(o) => o.name}
        columns={columns}
        {...(onSort ? { onSort, ...(sort ? { sort } : {}) } : {})}
        selectable
        {...(views ? { views } : {})}
        exportName={`${label.toLowerCase().replace(/\W+/g, '-')}-shown.csv`}
        toolbarStart={toolbarStart}
        toolbarEnd={toolbarEnd}
        minWidth={760}
      />
      {items.length === 0 && <EmptyTable text={empty} />}
    </Stack>
  );
}

function moveColumns(onOpen: (id: string) => void): DataColumn<StageMove>[] {
  return [
    {
      id: 'name',
      label: 'Opportunity',
      key: true,
      csv: (m) => m.name,
      render: (m) => (
        <>
          <Anchor component="button" type="button" fw={600} onClick={() => onOpen(m.opportunity_id)}>
            {m.name}
          </Anchor>
          <Text size="xs" c="dimmed">
            {m.account_name}
          </Text>
        </>
      ),
    },
    {
      id: 'move',
      label: 'Move',
      key: true,
      csv: (m) => `${m.from_stage} → ${m.to_stage}`,
      sortValue: (m) => m.to_stage,
      render: (m) => (
        <>
          {m.from_stage} → <b>{m.to_stage}</b>
        </>
      ),
    },
    {
      id: 'moved_at',
      label: 'Moved',
      csv: (m) => m.moved_at.slice(0, 10),
      render: (m) => formatDay(m.moved_at),
    },
    {
      id: 'engaged_at',
      label: 'Engaged before',
      csv: (m) => m.engaged_at.slice(0, 10),
      render: (m) => formatDay(m.engaged_at),
    },
    {
      id: 'amount',
      label: 'Amount',
      key: true,
      align: 'right',
      csv: (m) => dollars(m.amount_cents),
      sortValue: (m) => m.amount_cents,
      render: (m) => fullMoney(m.amount_cents, m.currency),
    },
  ];
}

/**
 * The moves of the progressed pipeline: sorted in the browser when one page holds them all, else a
 * header asks the server (`onSortChange`, issue 42 item 11).
 */
export function MovesTable({
  items,
  onOpen,
  total,
  sort,
  onSortChange,
}: {
  items: StageMove[];
  onOpen: (id: string) => void;
  total: number;
  sort: SortState | undefined;
  onSortChange: (next: SortState) => void;
}) {
  const sorting = pagedSort(
    moveColumns(onOpen),
    { total, pageSize: OPPORTUNITY_PAGE_SIZE, allowed: PROGRESSED_SORTS },
    sort,
    onSortChange,
  );
  return (
    <DataTable
      tableId="pipeline-progressed"
      label="Pipeline progressed"
      rows={items}
      rowId={(m) => `${m.opportunity_id}-${m.moved_at}`}
      rowName={(m) => m.name}
      {...sorting}
      selectable
      exportName="pipeline-progressed-shown.csv"
      minWidth={720}
    />
  );
}

const FILTERS: { value: OpportunityFilter; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'generated', label: 'Generated' },
  { value: 'influenced', label: 'Influenced' },
  { value: 'open', label: 'Open' },
  { value: 'won', label: 'Won' },
  { value: 'lost', label: 'Lost' },
];

const DEFAULT_ORDER: Record<OpportunityReportSort, 'asc' | 'desc'> = {
  created_at: 'desc',
  name: 'asc',
  stage: 'asc',
  attribution: 'desc',
  amount: 'desc',
};

/** The opportunity report's sort after a header click: the other way, else the column's own order. */
export function nextOpportunitySort(current: SortState | undefined, by: string): SortState {
  if (current?.by === by) return { by, order: current.order === 'asc' ? 'desc' : 'asc' };
  return { by, order: DEFAULT_ORDER[by as OpportunityReportSort] ?? 'asc' };
}

type OppState = { filter: OpportunityFilter; sort: OpportunityReportSort; order: 'asc' | 'desc' };
const stateString = (s: OppState) => `filter=${s.filter}&order=${s.order}&sort=${s.sort}`;
function parseState(text: string): OppState | null {
  const q = new URLSearchParams(text);
  const filter = FILTERS.find((f) => f.value === q.get('filter'))?.value;
  const sort = OPPORTUNITY_REPORT_SORTS.find((s) => s === q.get('sort'));
  const order = q.get('order') === 'asc' ? 'asc' : q.get('order') === 'desc' ? 'desc' : null;
  return filter && sort && order ? { filter, sort, order } : null;
}

/** Every opportunity of the range: a filter, a sort by any column (the server's), views and exports. */
export function OpportunitiesPanel({
  clientId,
  range,
  onOpen,
  initialFilter = 'all',
}: {
  clientId: string;
  range: Range;
  onOpen: (id: string) => void;
  initialFilter?: OpportunityFilter;
}) {
  const [state, setState] = useState<OppState>({ filter: initialFilter, sort: 'created_at', order: 'desc' });
  const [page, setPage] = useState(1);
  const { filter } = state;
  const q = useOpportunities(clientId, range, filter, page, { sort: state.sort, order: state.order });
  const change = (next: OppState) => {
    setState(next);
    setPage(1);
  };
  const filterControl = (
    <SegmentedControl
      aria-label="Which opportunities"
      size="xs"
      data={FILTERS}
      value={filter}
      onChange={(v) => change({ ...state, filter: v as OpportunityFilter })}
    />
  );
  const exports = (
    <>
      <DownloadButton
        label="Export all (CSV)"
        onDownload={() =>
          downloadExport(
            clientId,
            'opportunity',
            { ...range, filter },
            `opportunities-${filter}-${fileDay(range.from)}.csv`,
          )
        }
      />
      <PrepareFileButton clientId={clientId} range={range} filter={filter} />
    </>
  );
  return (
    <Stack gap="md">
      {q.isPending ? (
        <PanelLoading label="Loading the opportunities" />
      ) : q.isError ? (
        <PanelError error={q.error} what="the opportunities" onRetry={() => void q.refetch()} />
      ) : (
        <>
          <OpportunityTable
            items={q.data.items}
            label="Opportunities"
            empty="No opportunity was created or won in this period."
            onOpen={onOpen}
            sort={{ by: state.sort, order: state.order }}
            onSort={(by) => {
              const sort = by as OpportunityReportSort;
              change({
                ...state,
                sort,
                order: state.sort === sort ? (state.order === 'asc' ? 'desc' : 'asc') : DEFAULT_ORDER[sort],
              });
            }}
            views={{
              state: stateString(state),
              apply: (text) => {
                const next = parseState(text);
                if (next) change(next);
              },
            }}
            toolbarStart={filterControl}
            toolbarEnd={exports}
          />
          <Pager total={q.data.total} page={page} onChange={setPage} noun="opportunities" />
        </>
      )}
      <ExportFilesPanel clientId={clientId} />
    </Stack>
  );
}
