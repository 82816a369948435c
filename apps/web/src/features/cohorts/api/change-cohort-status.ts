import { useMutation, useQueryClient } from '@tanstack/react-query';
import { cohortSchema } from '@rally/shared/schemas/cohorts';
import { apiRequest } from '../../../lib/api-client.ts';

export type CohortStatusChange = { id: string } & ({ paused: boolean } | { archived: boolean });

/**
 * PATCH /v1/rest/cohort/{id}/pause ({ paused }) or /archive ({ archived }). A 409 (archived, so
 * read-only) is an answer, not a glitch: not retried.
 */
export function useChangeCohortStatus(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (change: CohortStatusChange) => {
      const { id, ...body } = change;
      const action = 'paused' in body ? 'pause' : 'archive';
      return apiRequest(`/v1/rest/cohort/${id}/${action}`, {
        method: 'PATCH',
        body,
        schema: cohortSchema,
        clientId,
        retries: 0,
      });
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['cohorts', clientId] }),
  });
}
