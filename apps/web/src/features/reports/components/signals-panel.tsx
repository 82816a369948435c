import { useState } from 'react';
import { Group, SegmentedControl, SimpleGrid, Stack } from '@mantine/core';
import { UTILIZATION_SORTS } from '@rally/shared/schemas/report-insights';
import type { UtilizationFilter } from '@rally/shared/schemas/report-insights';
import { AbbreviatedNumber } from '../../../components/abbreviated-number.tsx';
import { DataTable, pagedSort } from '../../../components/data-table/index.ts';
import type { SortState } from '../../../components/data-table/index.ts';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { PAGE_SIZE, useUtilization } from '../api/get-insights.ts';
import type { Range } from '../api/get-insights.ts';
import { Empty, ExportButton, Pages, Stat, fileDay, percent } from './report-parts.tsx';
import { signalColumns } from './report-tables.tsx';

/** Engagement › Signals: superprospects and whether sales acted on them; sorted by the server across pages. */
export function SignalsPanel({
  clientId,
  range,
  onOpen,
}: {
  clientId: string;
  range: Range;
  onOpen: (targetId: string) => void;
}) {
  const [filter, setFilter] = useState<UtilizationFilter>('all');
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState<SortState>();
  const q = useUtilization(clientId, range, filter, page, sort);
  if (q.isPending) return <PanelLoading label="Loading the signals report" />;
  if (q.isError)
    return <PanelError error={q.error} what="the signals report" onRetry={() => void q.refetch()} />;
  const u = q.data;
  const sorting = pagedSort(
    signalColumns(onOpen),
    { total: u.total, pageSize: PAGE_SIZE, allowed: UTILIZATION_SORTS },
    sort,
    (next) => {
      setSort(next);
      setPage(1);
    },
  );
  return (
    <Stack gap="md">
      <SimpleGrid cols={{ base: 1, xs: 3 }}>
        <Stat
          label="New superprospects"
          term="superprospects"
          value={<AbbreviatedNumber value={u.superprospects} />}
          detail="in the period"
        />
        <Stat
          label="Contacted after"
          term="contacted_after"
          value={<AbbreviatedNumber value={u.contacted} />}
          detail="sales outreach after they became super"
        />
        <Stat label="Signal used" value={percent(u.share)} detail="of superprospects acted on" />
      </SimpleGrid>
      <Group justify="space-between" wrap="wrap">
        <SegmentedControl
          aria-label="Superprospects shown"
          size="xs"
          value={filter}
          onChange={(v) => {
            setFilter(v as UtilizationFilter);
            setPage(1);
          }}
          data={[
            { value: 'all', label: 'All' },
            { value: 'not_contacted', label: 'Not contacted' },
            { value: 'contacted', label: 'Contacted' },
          ]}
        />
        <ExportButton
          clientId={clientId}
          report="signals/utilization"
          query={{ ...range, filter }}
          filename={`signals-utilization-${filter}-${fileDay(range.from)}.csv`}
        />
      </Group>
      {u.items.length === 0 ? (
        <Empty
          text={
            filter === 'all'
              ? 'No prospect became a superprospect in this period.'
              : 'No superprospect matches this filter in this period.'
          }
        />
      ) : (
        <DataTable
          tableId="report-signals"
          label="Superprospects and outreach"
          rows={u.items}
          rowId={(r) => r.target_id}
          rowName={(r) => r.name || r.email || 'prospect'}
          {...sorting}
          selectable
          exportName={`signals-${filter}-shown.csv`}
          minWidth={860}
        />
      )}
      <Pages total={u.total} page={page} onChange={setPage} label="Superprospects" />
    </Stack>
  );
}
