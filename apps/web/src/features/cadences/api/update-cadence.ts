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
    onSuccess: async (cadence, { id, integrationId }) => {
      queryClient.setQueryData(['cadences', clientId, id, integrationId], cadence);
      await queryClient.invalidateQueries({
        queryKey: getCadencesQueryOptions(clientId).queryKey,
        exact: true,
      });
    },
  });
}
