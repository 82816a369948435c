import '@mantine/charts/styles.css';
import { useMemo, useState } from 'react';
import { BarChart } from '@mantine/charts';
import { Group, Paper, Stack, Table, Text } from '@mantine/core';
import { IconChartBar } from '@tabler/icons-react';
import { abbreviateNumber, formatMonth } from '@rally/shared';
import type { PipelineGenerated } from '@rally/shared/schemas/reports';
import type { SortState } from '../../../components/data-table/index.ts';
import { DownloadButton } from '../../../components/download-button.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { OPPORTUNITY_PAGE_SIZE, downloadExport, useGenerated } from '../api/get-reports.ts';
import type { Range } from '../api/get-reports.ts';
import { currencySymbol } from './headlines.tsx';
import { OpportunityTable, Pager, fileDay, fullMoney, nextOpportunitySort } from './opportunity-tables.tsx';

/** Generated pipeline by month, with the same numbers as a table for screen readers and copying. */
function GeneratedByMonth({ months, currency }: { months: PipelineGenerated['by_month']; currency: string }) {
  const data = useMemo(
    () =>
      months.map((m) => ({
        // The server's months are UTC ("2026-11"); the middle of the month names it in any zone.
        month: formatMonth(`${m.month}-15`),
        opportunities: m.opportunities,
        amount: m.amount_cents / 100,
      })),
    [months],
  );
  if (data.length < 2) return null;
  return (
    <Paper withBorder radius="md" p="md">
      <Group gap={6} mb="sm">
        <IconChartBar size={16} />
        <Text fw={600} size="sm">
          Generated pipeline by month
        </Text>
      </Group>
      <BarChart
        h={200}
        data={data}
        dataKey="month"
        series={[{ name: 'amount', label: 'Pipeline generated', color: 'indigo.6' }]}
        valueFormatter={(v) => `${currencySymbol(currency)}${abbreviateNumber(v)}`}
        // The table below carries the numbers for screen readers; the picture stays out of their way
        // and out of the tab order.
        barChartProps={{ accessibilityLayer: false }}
        aria-hidden
      />
      <Table mt="sm" fz="sm" verticalSpacing={4} aria-label="Generated pipeline by month">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Month</Table.Th>
            <Table.Th ta="right">Opportunities</Table.Th>
            <Table.Th ta="right">Pipeline generated</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {data.map((m) => (
            <Table.Tr key={m.month}>
              <Table.Td>{m.month}</Table.Td>
              <Table.Td ta="right">{m.opportunities}</Table.Td>
              <Table.Td ta="right">{fullMoney(m.amount * 100, currency)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Paper>
  );
}

/** Pipeline generated: the opportunities created after an engagement, by month and as a table. */
export function GeneratedPanel({
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
  const q = useGenerated(clientId, range, page, sort);
  if (q.isPending) return <PanelLoading label="Loading the generated pipeline" />;
  if (q.isError)
    return <PanelError error={q.error} what="the generated pipeline" onRetry={() => void q.refetch()} />;
  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Text size="sm" c="dimmed">
          Opportunities created in the period whose account engaged with your ads first.
        </Text>
        <DownloadButton
          label="Export CSV"
          onDownload={() =>
            downloadExport(
              clientId,
              'pipeline/generated',
              range,
              `pipeline-generated-${fileDay(range.from)}.csv`,
            )
          }
        />
      </Group>
      <GeneratedByMonth months={q.data.by_month} currency={q.data.currency} />
      <OpportunityTable
        items={q.data.items}
        label="Pipeline generated"
        empty="No opportunity in this period followed an engagement with your ads yet."
        onOpen={onOpen}
        allLoaded={q.data.total <= OPPORTUNITY_PAGE_SIZE}
        {...(q.data.total > OPPORTUNITY_PAGE_SIZE
          ? {
              // Across pages the server sorts (issue 42 item 11); the page goes back to the first.
              onSort: (by: string) => {
                setSort(nextOpportunitySort(sort, by));
                setPage(1);
              },
              ...(sort ? { sort } : {}),
            }
          : {})}
      />
      <Pager total={q.data.total} page={page} onChange={setPage} noun="opportunities" />
    </Stack>
  );
}
