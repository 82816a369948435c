import { Paper, Text } from '@mantine/core';
import { formatCount, formatDay } from '@rally/shared';
import { DownloadButton } from '../../../components/download-button.tsx';
import { downloadReport } from '../api/get-insights.ts';
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
