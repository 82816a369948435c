import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { salesRepSchema } from '@rally/shared/schemas/integrations';
import type { SalesRep, updateSalesRepBody } from '@rally/shared/schemas/integrations';
import { apiRequest } from '../../../lib/api-client.ts';
import { salesRepsQueryOptions } from './sales-reps.ts';

export type UpdateSalesRepInput = { id: string; body: z.input<typeof updateSalesRepBody> };

/** POST /sc/sdr/{id} (settings.write): a rep's name, title, company name, calendar URL or photo. */
export const updateSalesRep = ({ id, body }: UpdateSalesRepInput) =>
  apiRequest(`/sc/sdr/${id}`, { method: 'POST', body, schema: salesRepSchema });

export function useUpdateSalesRep(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateSalesRep,
    meta: { toast: false },
    onSuccess: async (rep) => {
      queryClient.setQueryData<SalesRep[]>(salesRepsQueryOptions(clientId).queryKey, (list) =>
        list?.map((r) => (r.id === rep.id ? rep : r)),
      );
      // Cadence pickers list the same reps.
      await queryClient.invalidateQueries({ queryKey: ['sdr', clientId] });
    },
  });
}
