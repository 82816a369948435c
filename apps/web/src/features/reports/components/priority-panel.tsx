import { useState } from 'react';
import { Group, SegmentedControl, Stack, Text } from '@mantine/core';
import { PRIORITY_SORTS } from '@rally/shared/schemas/report-insights';
import type { PriorityRow } from '@rally/shared/schemas/report-insights';
import { DataTable, pagedSort } from '../../../components/data-table/index.ts';
import type { SortState } from '../../../components/data-table/index.ts';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { PAGE_SIZE, usePriority } from '../api/get-insights.ts';
import { Empty, ExportButton, Pages } from './report-parts.tsx';
import { wholeDays } from './priority-days.ts';
import { PriorityBulkActions, priorityColumns } from './report-tables.tsx';

/** Pipeline › Priority: open opportunities by their account's engagement; sorted by the server across pages. */
const PRIORITY_DAYS = [
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
];

export function PriorityPanel({
  clientId,
  canMark,
  onOpen,
}: {
  clientId: string;
  canMark: boolean;
  onOpen: (accountId: string) => void;
}) {
  const [days, setDays] = useState('30');
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState<SortState>();
  const q = usePriority(clientId, Number(days), page, sort);
  const sorting = (total: number) =>
    pagedSort(
      priorityColumns(clientId, canMark, onOpen),
      { total, pageSize: PAGE_SIZE, allowed: PRIORITY_SORTS },
      sort,
      (next) => {
        setSort(next);
        setPage(1);
      },
    );
  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap">
        <Text size="sm" c="dimmed" maw={560}>
          Open opportunities ranked by their account&apos;s recent engagement with your ads. Score:
          impressions + 5 × clicks + 5 × landing page views. Accounts marked as a sales priority (★) come
          first.
          {q.data ? <> {wholeDays(q.data.days, q.data.from, q.data.time_zone)}</> : null}
        </Text>
        <Group gap="sm">
          <SegmentedControl
            aria-label="Engagement of the last"
            size="xs"
            value={days}
            onChange={(v) => {
              setDays(v);
              setPage(1);
            }}
            data={PRIORITY_DAYS}
          />
          <ExportButton
            clientId={clientId}
            report="pipeline/priority"
            query={{ days: Number(days) }}
            filename={`pipeline-priority-${days}d.csv`}
          />
        </Group>
      </Group>
      {q.isPending ? (
        <PanelLoading label="Loading the priority list" />
      ) : q.isError ? (
        <PanelError error={q.error} what="the priority list" onRetry={() => void q.refetch()} />
      ) : q.data.items.length === 0 ? (
        <Empty text="No open opportunity yet. Connect a CRM to rank its deals by engagement." />
      ) : (
        <>
          <DataTable
            tableId="report-priority"
            label="Open opportunities by engagement"
            rows={q.data.items}
            rowId={(o) => o.opportunity_id}
            rowName={(o) => o.name}
            {...sorting(q.data.total)}
            selectable
            {...(canMark
              ? {
                  bulkActions: (rows: PriorityRow[], clear: () => void) => (
                    <PriorityBulkActions clientId={clientId} rows={rows} clear={clear} />
                  ),
                }
              : {})}
            exportName={`pipeline-priority-${days}d-shown.csv`}
            minWidth={900}
          />
          <Pages total={q.data.total} page={page} onChange={setPage} label="Opportunities" />
        </>
      )}
    </Stack>
  );
}
