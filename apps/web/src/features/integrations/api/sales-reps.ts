import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { salesRepSchema } from '@rally/shared/schemas/integrations';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /sc/sdr: the client's sales reps, photos first then by first name. */
export const salesRepsQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['sdr', clientId],
    queryFn: ({ signal }) => apiRequest('/sc/sdr', { schema: z.array(salesRepSchema), signal, clientId }),
  });

export const useSalesReps = (clientId: string, opts: { poll?: boolean } = {}) =>
  useQuery({ ...salesRepsQueryOptions(clientId), refetchInterval: opts.poll ? 2000 : false });

/** POST /sc/sdr {selected}: the reps whose prospects see ads. */
export function useSelectSalesReps(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (selected: string[]) =>
      apiRequest('/sc/sdr', { method: 'POST', body: { selected }, schema: z.array(salesRepSchema) }),
    meta: { toast: false },
    onSuccess: (reps) => queryClient.setQueryData(['sdr', clientId], reps),
  });
}
