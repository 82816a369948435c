import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { retentionSettingsSchema } from '@rally/shared/schemas/retention';
import type { RetentionSettingsUpdate } from '@rally/shared/schemas/retention';
import { apiRequest } from '../../../lib/api-client.ts';

const path = (clientId: string) => `/v1/rest/client/${clientId}/retention`;

/** GET /v1/rest/client/{id}/retention (settings.write): the defaults while none are saved. */
export const getRetentionQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['retention', clientId],
    queryFn: ({ signal }) =>
      apiRequest(path(clientId), { schema: retentionSettingsSchema, signal, clientId }),
  });

export const useRetention = (clientId: string) => useQuery(getRetentionQueryOptions(clientId));

/** PATCH …/retention: only the fields given change. */
export function useUpdateRetention(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: RetentionSettingsUpdate) =>
      apiRequest(path(clientId), { method: 'PATCH', body, schema: retentionSettingsSchema, clientId }),
    meta: { toast: false },
    onSuccess: (settings) => queryClient.setQueryData(getRetentionQueryOptions(clientId).queryKey, settings),
  });
}
