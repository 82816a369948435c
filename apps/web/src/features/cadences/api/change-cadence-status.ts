import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { CadenceStatusValue } from '@rally/shared/schemas/cadences';
import { apiRequest } from '../../../lib/api-client.ts';
import { getCadencesQueryOptions } from './get-cadences.ts';

export type ChangeCadenceStatusInput = {
  clientId: string;
  id: number;
  integrationId: number;
  status: CadenceStatusValue;
};

/**
 * PUT /sc/cadence/{id}/change_status. SPEC.md §7: "response errors swallowed, nothing returned" — a
 * refused move shows no toast; the screen reads the cadence back, so it shows the status that holds.
 * A refused move is an answer, not a glitch, so it is not retried.
 */
export async function changeCadenceStatus({
  clientId,
  id,
  integrationId,
  status,
}: ChangeCadenceStatusInput): Promise<void> {
  try {
    await apiRequest(`/sc/cadence/${id}/change_status`, {
      method: 'PUT',
      query: { integration_id: integrationId, client_id: clientId, status },
      retries: 0,
    });
  } catch {
    // Swallowed on purpose (SPEC.md §7); onSettled re-reads the cadence.
  }
}

export function useChangeCadenceStatus(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: changeCadenceStatus,
    onSettled: (_data, _error, { id, integrationId }) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: getCadencesQueryOptions(clientId).queryKey, exact: true }),
        queryClient.invalidateQueries({ queryKey: ['cadences', clientId, id, integrationId], exact: true }),
      ]),
  });
}
