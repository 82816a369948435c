import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { exportFileListReply, exportFileSchema } from '@rally/shared/schemas/export-files';
import type { CreateExportFileBody, ExportFile } from '@rally/shared/schemas/export-files';
import { apiBlob, apiRequest } from '../../../lib/api-client.ts';
import { saveBlob } from './get-reports.ts';

const path = (clientId: string) => `/v1/report/client/${clientId}/export_files`;
/** While a file is being written its status is asked again this often. */
const POLL_MS = 1500;

export const exportFilesQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['export-files', clientId],
    queryFn: ({ signal }) => apiRequest(path(clientId), { schema: exportFileListReply, signal, clientId }),
  });

/** The client's export files; polled while one is queued or being written. */
export const useExportFiles = (clientId: string) =>
  useQuery({
    ...exportFilesQueryOptions(clientId),
    refetchInterval: (q) =>
      q.state.data?.items.some((f) => f.status === 'queued' || f.status === 'running') ? POLL_MS : false,
  });

/** POST export_files: the job writes the file; the list shows it at once. */
export function useRequestExportFile(clientId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationKey: ['save:export-file'],
    mutationFn: (body: CreateExportFileBody) =>
      apiRequest(path(clientId), { method: 'POST', body, schema: exportFileSchema, clientId }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['export-files', clientId] }),
  });
}

/** A done file through GET /v1/download/{id} (it needs the client header, so it is fetched). */
export async function downloadExportFile(clientId: string, file: ExportFile): Promise<void> {
  if (!file.download_url) return;
  saveBlob(await apiBlob(file.download_url, { clientId }), file.name);
}
