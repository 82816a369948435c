import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  addSuppressionReply,
  suppressionListReply,
  suppressionSchema,
  uploadSuppressionsReply,
} from '@rally/shared/schemas/suppressions';
import type { AddSuppressionBody } from '@rally/shared/schemas/suppressions';
import { apiBlob, apiRequest } from '../../../lib/api-client.ts';

const path = (clientId: string) => `/v1/rest/client/${clientId}/suppressions`;

export type SuppressionFilter = { state: 'active' | 'removed'; q: string; cursor: string | null };

/** GET /rest/client/{id}/suppressions: a page of the list (or its removals), newest first. */
export const getSuppressionsQueryOptions = (clientId: string, f: SuppressionFilter) =>
  queryOptions({
    queryKey: ['suppressions', clientId, f],
    queryFn: ({ signal }) =>
      apiRequest(path(clientId), {
        schema: suppressionListReply,
        signal,
        clientId,
        query: {
          state: f.state,
          limit: '50',
          ...(f.q.trim() ? { q: f.q.trim() } : {}),
          ...(f.cursor ? { cursor: f.cursor } : {}),
        },
      }),
    placeholderData: keepPreviousData,
  });

export const useSuppressions = (clientId: string, f: SuppressionFilter, enabled = true) =>
  useQuery({ ...getSuppressionsQueryOptions(clientId, f), enabled });

function useInvalidate(clientId: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: ['suppressions', clientId] });
}

/** POST: suppress one address by hand (source manual). */
export function useAddSuppression(clientId: string) {
  const invalidate = useInvalidate(clientId);
  return useMutation({
    mutationFn: (body: AddSuppressionBody) =>
      apiRequest(path(clientId), {
        method: 'POST',
        body,
        schema: addSuppressionReply,
        clientId,
        retries: 0,
      }),
    meta: { toast: false },
    onSuccess: () => void invalidate(),
  });
}

/** POST …/upload: every address of a CSV file (source import). */
export function useUploadSuppressions(clientId: string) {
  const invalidate = useInvalidate(clientId);
  return useMutation({
    mutationFn: (file: File) => {
      const form = new FormData();
      form.append('file', file);
      return apiRequest(`${path(clientId)}/upload`, {
        method: 'POST',
        body: form,
        schema: uploadSuppressionsReply,
        clientId,
        retries: 0,
      });
    },
    meta: { toast: false },
    onSuccess: () => void invalidate(),
  });
}

/** POST …/{id}/remove: off the list, with the reason, kept as history. */
export function useRemoveSuppression(clientId: string) {
  const invalidate = useInvalidate(clientId);
  return useMutation({
    mutationFn: ({ id, reason }: { id: string; reason: string }) =>
      apiRequest(`${path(clientId)}/${id}/remove`, {
        method: 'POST',
        body: { reason },
        schema: suppressionSchema,
        clientId,
        retries: 0,
      }),
    meta: { toast: false },
    onSuccess: () => void invalidate(),
  });
}

/** GET …/export.csv: the whole list, removals included. */
export async function downloadSuppressions(clientId: string): Promise<void> {
  const blob = await apiBlob(`${path(clientId)}/export.csv`, { clientId });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = 'suppression-list.csv';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
