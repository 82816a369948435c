import { useMutation, useQueryClient } from '@tanstack/react-query';
import { cadenceSchema } from '@rally/shared/schemas/cadences';
import type { UpdateCadenceBody } from '@rally/shared/schemas/cadences';
import { apiRequest } from '../../../lib/api-client.ts';
import { getCadencesQueryOptions } from './get-cadences.ts';

export type UpdateCadenceInput = { id: number; integrationId: number; body: UpdateCadenceBody };

/** PUT /sc/cadence/{id} (cadence.write): ads on, selected reps, days' content and actions. */
export const updateCadence = ({ id, integrationId, body }: UpdateCadenceInput) =>
  apiRequest(`/sc/cadence/${id}`, {
    method: 'PUT',
    query: { integration_id: integrationId },
    body,
    schema: cadenceSchema,
  });

export function useUpdateCadence(clientId: string, opts: { toast?: boolean } = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateCadence,
    meta: { toast: opts.toast ?? true },
    // A read of this cadence under way while it is saved (the screen polls it while a sync runs) can
    // answer from before the save and land after it, putting the old value back: the ads switch
    // snapped back now and then. Such reads are cancelled before the saved cadence is put in place.
    onMutate: async ({ id, integrationId }) => {
      await queryClient.cancelQueries({ queryKey: ['cadences', clientId, id, integrationId], exact: true });
    },
    onSuccess: async (cadence, { id, integrationId }) => {
      await queryClient.cancelQueries({ queryKey: ['cadences', clientId, id, integrationId], exact: true });
      queryClient.setQueryData(['cadences', clientId, id, integrationId], cadence);
      await queryClient.invalidateQueries({
        queryKey: getCadencesQueryOptions(clientId).queryKey,
        exact: true,
      });
    },
  });
}
