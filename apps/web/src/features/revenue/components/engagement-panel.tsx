import '@mantine/charts/styles.css';
import { useState } from 'react';
import { Group, Paper, SegmentedControl, Skeleton, Table, Text } from '@mantine/core';
import { DownloadButton } from '../../../components/download-button.tsx';
import { PanelError } from '../../../components/panel-states.tsx';
import { UncountedNote } from '../../../components/uncounted-note.tsx';
import { downloadScExport, usePerformance } from '../api/get-reports.ts';
import type { Range, ReportView } from '../api/get-reports.ts';
import { EngagementChart, periodLabel } from './engagement-chart.tsx';
import { fileDay } from './opportunity-tables.tsx';

const VIEWS: { value: ReportView; label: string }[] = [
  { value: 'daily', label: 'Daily' },
  { value: 'weekly', label: 'Weekly' },
  { value: 'monthly', label: 'Monthly' },
];

/** Engagement per day, week or month (GET /sc/performance/by_date), with its numbers as a table. */
export function EngagementPanel({ clientId, range }: { clientId: string; range: Range }) {
  const [view, setView] = useState<ReportView>('weekly');
  const q = usePerformance(clientId, range, view);
  return (
    <Paper withBorder radius="md" p="md">
      <Group justify="space-between" mb="sm" wrap="wrap" gap="xs">
        <Text fw={600}>Engagement</Text>
        <Group gap="xs">
          <SegmentedControl
            aria-label="Engagement per"
            size="xs"
            data={VIEWS}
            value={view}
            onChange={(v) => setView(v as ReportView)}
          />
          <DownloadButton
            label="Export engagement"
            onDownload={() =>
              downloadScExport(
                clientId,
                '/sc/performance/by_date/export',
                { ...range, view },
                `performance-${view}-${fileDay(range.from)}.csv`,
              )
            }
          />
        </Group>
      </Group>
      {q.isPending ? (
        <Skeleton height={220} role="status" aria-label="Loading the engagement" />
      ) : q.isError ? (
        <PanelError error={q.error} what="the engagement" onRetry={() => void q.refetch()} />
      ) : (
        <>
          <EngagementChart rows={q.data.rows} view={view} />
          <UncountedNote
            summary={q.data.uncounted}
            title="Not counted in this period"
            ariaLabel="Not counted in the engagement report"
            mt="xs"
            mb="xs"
          />
          <details>
            <summary>
              <Text span size="sm">
                Show the numbers
              </Text>
            </summary>
            <Table mt="xs" fz="sm" verticalSpacing={4} aria-label="Engagement per period">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{view === 'daily' ? 'Day' : view === 'weekly' ? 'Week' : 'Month'}</Table.Th>
                  <Table.Th ta="right">Impressions</Table.Th>
                  <Table.Th ta="right">Clicks</Table.Th>
                  <Table.Th ta="right">Landing page views</Table.Th>
                  <Table.Th ta="right">New superprospects</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {q.data.rows.map((r) => (
                  <Table.Tr key={r.date}>
                    <Table.Td>{periodLabel(r.date, view)}</Table.Td>
                    <Table.Td ta="right">{r.impressions}</Table.Td>
                    <Table.Td ta="right">{r.clicks}</Table.Td>
                    <Table.Td ta="right">{r.views}</Table.Td>
                    <Table.Td ta="right">{r.new_superprospects}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </details>
        </>
      )}
    </Paper>
  );
}
