import { useState } from 'react';
import { Button, Paper, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconDownload } from '@tabler/icons-react';
import { formatDate } from '@rally/shared';
import { downloadReport } from '../api/get-insights.ts';
import type { ExportReport } from '../api/get-insights.ts';

export const whole = (n: number) => n.toLocaleString('en-US');
export const percent = (r: number | null) => (r === null ? '—' : `${(r * 100).toFixed(1)}%`);
export const day = (iso: string | null) => (iso ? formatDate(iso, 'd MMM yyyy') : '—');
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
  const [busy, setBusy] = useState(false);
  return (
    <Button
      variant="default"
      size="xs"
      leftSection={<IconDownload size={14} />}
      loading={busy}
      onClick={async () => {
        setBusy(true);
        try {
          await downloadReport(clientId, report, query, filename);
        } catch {
          notifications.show({ color: 'red', message: 'The export could not be made. Please try again.' });
        } finally {
          setBusy(false);
        }
      }}
    >
      {label}
    </Button>
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
