import { useState } from 'react';
import { Group, Stack, Text } from '@mantine/core';
import type { SortState } from '../../../components/data-table/index.ts';
import { DownloadButton } from '../../../components/download-button.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { downloadExport, useProgressed } from '../api/get-reports.ts';
import type { Range } from '../api/get-reports.ts';
import { EmptyTable, MovesTable, Pager, fileDay } from './opportunity-tables.tsx';

/** Pipeline progressed: the stage moves forward after an engagement. */
export function ProgressedPanel({
  clientId,
  range,
  onOpen,
}: {
  clientId: string;
  range: Range;
  onOpen: (id: string) => void;
}) {
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState<SortState>();
  const q = useProgressed(clientId, range, page, sort);
  if (q.isPending) return <PanelLoading label="Loading the progressed pipeline" />;
  if (q.isError)
    return <PanelError error={q.error} what="the progressed pipeline" onRetry={() => void q.refetch()} />;
  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Text size="sm" c="dimmed">
          Stage moves forward in the period, made after the account engaged with your ads.
        </Text>
        <DownloadButton
          label="Export CSV"
          onDownload={() =>
            downloadExport(
              clientId,
              'pipeline/progressed',
              range,
              `pipeline-progressed-${fileDay(range.from)}.csv`,
            )
          }
        />
      </Group>
      {q.data.items.length === 0 ? (
        <EmptyTable text="No opportunity moved forward after an engagement in this period." />
      ) : (
        <MovesTable
          items={q.data.items}
          onOpen={onOpen}
          total={q.data.total}
          sort={sort}
          onSortChange={(next) => {
            setSort(next);
            setPage(1);
          }}
        />
      )}
      <Pager total={q.data.total} page={page} onChange={setPage} noun="moves" />
    </Stack>
  );
}
