import { queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { sortSalesReps } from '@rally/shared';
import { cadenceListItemSchema } from '@rally/shared/schemas/cadences';
import { salesRepSchema } from '@rally/shared/schemas/integrations';
import { apiRequest } from '../../../lib/api-client.ts';

// The same calls and keys the cadence screens use, so the cache serves both.

/** GET /sc/cadence: the cadence filter's options. */
export const getCadenceOptionsQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['cadences', clientId],
    queryFn: ({ signal }) =>
      apiRequest('/sc/cadence', { schema: z.array(cadenceListItemSchema), signal, clientId }),
  });

/** GET /sc/sdr: the sales rep filter's options, photos first then by first name (SPEC.md §5). */
export const getRepOptionsQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['sdr', clientId],
    queryFn: ({ signal }) => apiRequest('/sc/sdr', { schema: z.array(salesRepSchema), signal, clientId }),
    select: sortSalesReps,
  });

export const useCadenceOptions = (clientId: string) => useQuery(getCadenceOptionsQueryOptions(clientId));
export const useRepOptions = (clientId: string) => useQuery(getRepOptionsQueryOptions(clientId));
