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
 * PUT /sc/cadence/{id}/change_status (SPEC.md §7: nothing is returned). A refused move is a 409
 * answer, not a glitch, so it is not retried; the screen reads the status back either way.
 */
export const changeCadenceStatus = ({ clientId, id, integrationId, status }: ChangeCadenceStatusInput) =>
  apiRequest(`/sc/cadence/${id}/change_status`, {
    method: 'PUT',
    query: { integration_id: integrationId, client_id: clientId, status },
    retries: 0,
  });

export function useChangeCadenceStatus(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: changeCadenceStatus,
    onSettled: () => queryClient.invalidateQueries({ queryKey: getCadencesQueryOptions(clientId).queryKey }),
  });
}
