import { queryOptions, useQuery } from '@tanstack/react-query';
import { cadenceSchema } from '@rally/shared/schemas/cadences';
import { apiRequest } from '../../../lib/api-client.ts';
import { CADENCE_SYNC_POLL_MS } from './get-cadences.ts';

/** GET /sc/cadence/{id}?integration_id: one cadence with its days. */
export const getCadenceQueryOptions = (clientId: string, id: number, integrationId: number) =>
  queryOptions({
    queryKey: ['cadences', clientId, id, integrationId],
    queryFn: ({ signal }) =>
      apiRequest(`/sc/cadence/${id}`, {
        query: { integration_id: integrationId },
        schema: cadenceSchema,
        signal,
        clientId,
      }),
  });

export const useCadence = (clientId: string, id: number, integrationId: number | null) =>
  useQuery({
    ...getCadenceQueryOptions(clientId, id, integrationId ?? 0),
    enabled: integrationId !== null,
    refetchInterval: (q) => (q.state.data?.is_syncing ? CADENCE_SYNC_POLL_MS : false),
  });
