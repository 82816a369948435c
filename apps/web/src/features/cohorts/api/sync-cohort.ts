import { useMutation, useQueryClient } from '@tanstack/react-query';
import { cohortSchema } from '@rally/shared/schemas/cohorts';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /v1/marx/action/client/{id}/cohort/{id}/sync: queues a sync (the SPEC's call is a GET). */
export function useSyncCohort(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      apiRequest(`/v1/marx/action/client/${clientId}/cohort/${id}/sync`, {
        schema: cohortSchema,
        clientId,
        retries: 0,
      }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['cohorts', clientId] }),
  });
}
