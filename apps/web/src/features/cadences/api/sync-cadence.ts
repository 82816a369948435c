import { useMutation, useQueryClient } from '@tanstack/react-query';
import { cadenceSyncReply } from '@rally/shared/schemas/integrations';
import { apiRequest } from '../../../lib/api-client.ts';
import { getCadencesQueryOptions } from './get-cadences.ts';

export type SyncCadenceInput = { id: number; integrationId: number };

/** GET /sc/action/sync/cadence/{id}?integration_id (cadence.write): sync this cadence now. */
export const syncCadence = ({ id, integrationId }: SyncCadenceInput) =>
  apiRequest(`/sc/action/sync/cadence/${id}`, {
    query: { integration_id: integrationId },
    schema: cadenceSyncReply,
    // 409 means it cannot be synced (a file import, a disconnected platform): say so at once.
    retries: 0,
  });

export function useSyncCadence(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: syncCadence,
    // The cadence queries poll while is_syncing is true.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: getCadencesQueryOptions(clientId).queryKey }),
  });
}
