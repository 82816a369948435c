import { queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { salesRepSchema } from '@rally/shared/schemas/integrations';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /sc/sdr: the client's sales reps, to fill an ad's or page's assignee from one of them. */
export const getSalesRepsQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['sdr', clientId],
    queryFn: ({ signal }) => apiRequest('/sc/sdr', { schema: z.array(salesRepSchema), signal, clientId }),
  });

export const useSalesReps = (clientId: string) => useQuery(getSalesRepsQueryOptions(clientId));
