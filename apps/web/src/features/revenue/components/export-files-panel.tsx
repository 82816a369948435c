import type { MouseEvent } from 'react';
import {
  Anchor,
  Badge,
  Button,
  Group,
  Paper,
  Stack,
  Table,
  Text,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconFileExport } from '@tabler/icons-react';
import { formatCount, formatDayTime } from '@rally/shared';
import { EXPORT_FILE_TTL_DAYS } from '@rally/shared/schemas/export-files';
import type { ExportFile } from '@rally/shared/schemas/export-files';
import { DownloadButton } from '../../../components/download-button.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { downloadExportFile, useExportFiles, useRequestExportFile } from '../api/export-files.ts';
import type { OpportunityFilter, Range } from '../api/get-reports.ts';

/** The Export files panel's id: the "Prepare file" message links to it. */
export const EXPORT_FILES_ID = 'export-files';

/** Scrolls to the Export files panel and moves the focus to its heading (the link's target). */
function goToExportFiles(event: MouseEvent) {
  const panel = document.getElementById(EXPORT_FILES_ID);
  if (!panel) return;
  event.preventDefault();
  panel.scrollIntoView({ behavior: 'smooth', block: 'start' });
  panel.focus({ preventScroll: true });
}

const STATUS: Record<ExportFile['status'], { label: string; color: string }> = {
  queued: { label: 'Queued', color: 'gray' },
  running: { label: 'Writing', color: 'blue' },
  done: { label: 'Ready', color: 'green' },
  failed: { label: 'Failed', color: 'red' },
};

/**
 * "Prepare file": the opportunity export of the range written in the background (a long range can
 * take minutes to stream), for download from the list below when ready (issue 18's export files).
 */
export function PrepareFileButton({
  clientId,
  range,
  filter,
}: {
  clientId: string;
  range: Range;
  filter: OpportunityFilter;
}) {
  const request = useRequestExportFile(clientId);
  return (
    <Button
      variant="default"
      size="xs"
      leftSection={<IconFileExport size={14} />}
      loading={request.isPending}
      onClick={() =>
        request.mutate(
          { report: 'opportunity', filter, ...range },
          {
            onSuccess: () =>
              notifications.show({
                color: 'green',
                message: (
                  <>
                    The file is being written: download it from{' '}
                    <Anchor href={`#${EXPORT_FILES_ID}`} onClick={goToExportFiles} inherit>
                      Export files
                    </Anchor>{' '}
                    when it is ready.
                  </>
                ),
              }),
          },
        )
      }
    >
      Prepare file
    </Button>
  );
}

/** The client's export files with their status; a ready one downloads. Hidden while there are none. */
export function ExportFilesPanel({ clientId }: { clientId: string }) {
  const q = useExportFiles(clientId);
  if (q.isPending) return <PanelLoading label="Loading the export files" />;
  if (q.isError)
    return <PanelError error={q.error} what="the export files" onRetry={() => void q.refetch()} />;
  if (!q.data.items.length) return null;
  return (
    <Paper
      withBorder
      radius="md"
      p="md"
      id={EXPORT_FILES_ID}
      tabIndex={-1}
      component="section"
      aria-labelledby={`${EXPORT_FILES_ID}-title`}
    >
      <Stack gap="xs">
        <Title order={3} size="h5" id={`${EXPORT_FILES_ID}-title`}>
          Export files
        </Title>
        <Text size="sm" c="dimmed">
          Files prepared in the background are kept for {EXPORT_FILE_TTL_DAYS} days.
        </Text>
        <Table.ScrollContainer minWidth={480}>
          <Table verticalSpacing="xs" aria-label="Export files">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>File</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th ta="right">Rows</Table.Th>
                <Table.Th>Asked for</Table.Th>
                <Table.Th>
                  <VisuallyHidden>Download</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {q.data.items.map((f) => (
                <Table.Tr key={f.id}>
                  <Table.Td>
                    <Text size="sm">{f.name}</Text>
                    {f.error && (
                      <Text size="xs" c="red.8">
                        {f.error}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Badge color={STATUS[f.status].color} variant="light">
                      {STATUS[f.status].label}
                    </Badge>
                  </Table.Td>
                  <Table.Td ta="right">{f.status === 'done' ? formatCount(f.rows) : '—'}</Table.Td>
                  <Table.Td>
                    <Text size="sm">{formatDayTime(f.created_at)}</Text>
                  </Table.Td>
                  <Table.Td>{f.download_url && <DownloadFile clientId={clientId} file={f} />}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Stack>
    </Paper>
  );
}

function DownloadFile({ clientId, file }: { clientId: string; file: ExportFile }) {
  return (
    <Group justify="flex-end">
      <DownloadButton
        label="Download"
        ariaLabel={`Download ${file.name}`}
        failMessage="The file could not be downloaded. Please try again."
        onDownload={() => downloadExportFile(clientId, file)}
      />
    </Group>
  );
}
