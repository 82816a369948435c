import { useMutation, useQueryClient } from '@tanstack/react-query';
import { journeySchema } from '@rally/shared/schemas/journeys';
import type { JourneyStageInput } from '@rally/shared/schemas/journeys';
import { apiRequest } from '../../../lib/api-client.ts';

export type JourneyDraft = {
  /** Null for a cohort without a journey yet (POST), else the journey's id (PUT). */
  id: string | null;
  cohortId: string;
  name: string;
  stages: JourneyStageInput[];
};

/** POST or PUT /v1/rest/client/{id}/journey[/{id}]: saves the whole journey. */
export function useSaveJourney(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (d: JourneyDraft) =>
      d.id
        ? apiRequest(`/v1/rest/client/${clientId}/journey/${d.id}`, {
            method: 'PUT',
            body: { name: d.name, stages: d.stages },
            schema: journeySchema,
            clientId,
            retries: 0,
          })
        : apiRequest(`/v1/rest/client/${clientId}/journey`, {
            method: 'POST',
            body: { cohort_id: d.cohortId, name: d.name, stages: d.stages },
            schema: journeySchema,
            clientId,
            retries: 0,
          }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['journeys', clientId] }),
  });
}
