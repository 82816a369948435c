import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { erasureListReply, erasureReply } from '@rally/shared/schemas/erasures';
import type { ErasureBody } from '@rally/shared/schemas/erasures';
import { apiRequest } from '../../../lib/api-client.ts';

const path = (clientId: string) => `/v1/rest/client/${clientId}/erasures`;

/** GET /rest/client/{id}/erasures: the records of the people forgotten (keyed hashes only). */
export const getErasuresQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['erasures', clientId],
    queryFn: ({ signal }) => apiRequest(path(clientId), { schema: erasureListReply, signal, clientId }),
  });

export const useErasures = (clientId: string) => useQuery(getErasuresQueryOptions(clientId));

/** POST: forget one person by address. The suppression list changes too (a hash-only entry). */
export function useErase(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ErasureBody) =>
      apiRequest(path(clientId), { method: 'POST', body, schema: erasureReply, clientId, retries: 0 }),
    meta: { toast: false },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: getErasuresQueryOptions(clientId).queryKey });
      void queryClient.invalidateQueries({ queryKey: ['suppressions', clientId] });
    },
  });
}
