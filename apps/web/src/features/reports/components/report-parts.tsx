import type { ReactNode } from 'react';
import { Group, Pagination, Paper, Text } from '@mantine/core';
import { formatCount, formatDay } from '@rally/shared';
import type { MetricTerm } from '@rally/shared';
import { DownloadButton } from '../../../components/download-button.tsx';
import { MetricInfo } from '../../../components/metric-info.tsx';
import { PAGE_SIZE, downloadReport } from '../api/get-insights.ts';
import type { ExportReport } from '../api/get-insights.ts';

export const whole = (n: number) => formatCount(n);
export const percent = (r: number | null) => (r === null ? '—' : `${(r * 100).toFixed(1)}%`);
export const day = (iso: string | null) => (iso ? formatDay(iso) : '—');
export const fileDay = (epoch: number) => new Date(epoch * 1000).toISOString().slice(0, 10);

export function ExportButton({
  clientId,
  report,
  query,
  filename,
  label = 'Export CSV',
}: {
  clientId: string;
  report: ExportReport;
  query: Record<string, string | number>;
  filename: string;
  label?: string;
}) {
  return (
    <DownloadButton label={label} onDownload={() => downloadReport(clientId, report, query, filename)} />
  );
}

export function Empty({ text }: { text: string }) {
  return (
    <Paper withBorder radius="md" p="xl">
      <Text c="dimmed" ta="center">
        {text}
      </Text>
    </Paper>
  );
}

export function Pages({
  total,
  page,
  onChange,
  label,
}: {
  total: number;
  page: number;
  onChange: (p: number) => void;
  label: string;
}) {
  const pages = Math.ceil(total / PAGE_SIZE);
  if (pages < 2) return null;
  return (
    <Group justify="flex-end">
      <Pagination
        total={pages}
        value={page}
        onChange={onChange}
        size="sm"
        getControlProps={(control) => ({ 'aria-label': `${label}: ${control} page` })}
        getItemProps={(p) => ({ 'aria-label': `${label}: page ${p}` })}
      />
    </Group>
  );
}

export function Stat({
  label,
  value,
  detail,
  term,
}: {
  label: string;
  value: ReactNode;
  detail?: string;
  /** The shared definition shown beside the label (issue 42 item 6). */
  term?: MetricTerm;
}) {
  return (
    <Paper withBorder radius="md" p="md">
      <Group gap={4} wrap="nowrap">
        <Text size="xs" tt="uppercase" fw={700} c="dimmed">
          {label}
        </Text>
        {term && <MetricInfo term={term} label={label} />}
      </Group>
      <Text fz={26} fw={700} lh={1.2} mt={4}>
        {value}
      </Text>
      {detail && (
        <Text size="sm" c="dimmed" mt={4}>
          {detail}
        </Text>
      )}
    </Paper>
  );
}
