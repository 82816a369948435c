import { queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { sortSalesReps } from '@rally/shared';
import { salesRepSchema } from '@rally/shared/schemas/integrations';
import { apiRequest } from '../../../lib/api-client.ts';

/**
 * GET /sc/sdr/cadence/{id}?integration_id: the reps with prospects in the cadence, for the
 * selected_sdrs picker, photos first then by first name (SPEC.md §5).
 */
export const getCadenceRepsQueryOptions = (clientId: string, id: number, integrationId: number) =>
  queryOptions({
    queryKey: ['sdr', clientId, 'cadence', id, integrationId],
    queryFn: async ({ signal }) =>
      sortSalesReps(
        await apiRequest(`/sc/sdr/cadence/${id}`, {
          query: { integration_id: integrationId },
          schema: z.array(salesRepSchema),
          signal,
          clientId,
        }),
      ),
  });

export const useCadenceReps = (clientId: string, id: number, integrationId: number) =>
  useQuery(getCadenceRepsQueryOptions(clientId, id, integrationId));

/** GET /sc/sdr: every rep of the client (the list shows the selected ones' faces). */
export const getClientRepsQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['sdr', clientId],
    queryFn: ({ signal }) => apiRequest('/sc/sdr', { schema: z.array(salesRepSchema), signal, clientId }),
  });

export const useClientReps = (clientId: string) => useQuery(getClientRepsQueryOptions(clientId));
