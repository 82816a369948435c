import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  checkReply,
  fieldsReply,
  fileImportListReply,
  fileImportSchema,
} from '@rally/shared/schemas/fileforce';
import type { ColumnMapping, ImportKind } from '@rally/shared/schemas/fileforce';
import { apiBlob, apiRequest } from '../../../lib/api-client.ts';

/** The file-import calls under /v1/integration/crm/fileforce/client/{id}/ (SPEC.md §7). */
const base = (clientId: string) => `/v1/integration/crm/fileforce/client/${clientId}`;

export const useFileforceFields = (clientId: string, kind: ImportKind) =>
  useQuery({
    queryKey: ['fileforce', clientId, 'fields', kind],
    queryFn: ({ signal }) =>
      apiRequest(`${base(clientId)}/fields`, { query: { kind }, schema: fieldsReply, signal }),
    staleTime: Infinity,
  });

export const importQueryOptions = (clientId: string, importId: string) =>
  queryOptions({
    queryKey: ['fileforce', clientId, 'import', importId],
    queryFn: ({ signal }) =>
      apiRequest(`${base(clientId)}/imports/${importId}`, { schema: fileImportSchema, signal }),
  });

/** One import; polls while it is queued or running so the progress bar moves. */
export const useImport = (clientId: string, importId: string) =>
  useQuery({
    ...importQueryOptions(clientId, importId),
    refetchInterval: (q) =>
      q.state.data && ['queued', 'running'].includes(q.state.data.status) ? 1000 : false,
  });

export const useImports = (clientId: string) =>
  useQuery({
    queryKey: ['fileforce', clientId, 'imports'],
    queryFn: ({ signal }) => apiRequest(`${base(clientId)}/imports`, { schema: fileImportListReply, signal }),
    refetchInterval: (q) =>
      q.state.data?.some((i) => ['queued', 'running'].includes(i.status)) ? 1500 : false,
  });

export function useUploadCsv(clientId: string) {
  return useMutation({
    mutationFn: ({ file, kind }: { file: File; kind: ImportKind }) => {
      const form = new FormData();
      form.set('kind', kind);
      form.set('file', file, file.name);
      return apiRequest(`${base(clientId)}/imports`, {
        method: 'POST',
        body: form,
        schema: fileImportSchema,
      });
    },
    meta: { toast: false },
  });
}

export function useSaveMapping(clientId: string, importId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (mapping: ColumnMapping) =>
      apiRequest(`${base(clientId)}/imports/${importId}`, {
        method: 'PUT',
        body: { mapping },
        schema: fileImportSchema,
      }),
    meta: { toast: false },
    onSuccess: (data) => queryClient.setQueryData(importQueryOptions(clientId, importId).queryKey, data),
  });
}

/** POST targets/check: a dry run over the whole file; nothing is written. */
export function useCheckTargets(clientId: string) {
  return useMutation({
    mutationFn: (input: { importId: string; mapping: ColumnMapping }) =>
      apiRequest(`${base(clientId)}/targets/check`, {
        method: 'POST',
        body: { import_id: input.importId, mapping: input.mapping },
        schema: checkReply,
      }),
    meta: { toast: false },
  });
}

export function useStartImport(clientId: string, importId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () =>
      apiRequest(`${base(clientId)}/imports/${importId}/start`, { method: 'POST', schema: fileImportSchema }),
    meta: { toast: false },
    onSuccess: (data) => queryClient.setQueryData(importQueryOptions(clientId, importId).queryKey, data),
  });
}

/** The file name the server gives the skipped rows (routes.ts: the upload's name, then -skipped-rows). */
export const skippedFileName = (fileName: string) =>
  `${fileName.replace(/\.csv$/i, '').replace(/[^\w.-]/g, '_')}-skipped-rows.csv`;

/**
 * GET imports/{id}/skipped.csv: every row the import skips, with its problem and the file's own
 * cells, fetched (the call needs the client header) and handed to the browser as a download.
 */
export async function downloadSkippedRows(clientId: string, importId: string, fileName: string) {
  const blob = await apiBlob(`${base(clientId)}/imports/${importId}/skipped.csv`, { clientId });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = skippedFileName(fileName);
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
