import { useMutation, useQueryClient } from '@tanstack/react-query';
import { cohortSchema } from '@rally/shared/schemas/cohorts';
import type { CohortCreateBody } from '@rally/shared/schemas/cohorts';
import { apiRequest } from '../../../lib/api-client.ts';

/** POST /v1/rest/cohort: saves the cohort; its first sync is queued. */
export function useCreateCohort(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CohortCreateBody) =>
      apiRequest('/v1/rest/cohort', { method: 'POST', body, schema: cohortSchema, clientId, retries: 0 }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['cohorts', clientId] }),
  });
}
