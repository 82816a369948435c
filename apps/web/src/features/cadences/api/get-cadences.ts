import { queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { cadenceListItemSchema } from '@rally/shared/schemas/cadences';
import type { CadenceListItem } from '@rally/shared/schemas/cadences';
import { apiRequest } from '../../../lib/api-client.ts';

/** While a cadence syncs, its screen asks again this often so 'Syncing…' turns into the new time. */
export const CADENCE_SYNC_POLL_MS = 1500;

export const anySyncing = (list: CadenceListItem[] | undefined) => list?.some((c) => c.is_syncing) ?? false;

/** GET /sc/cadence: the client's cadences with their counts. */
export const getCadencesQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['cadences', clientId],
    queryFn: ({ signal }) =>
      apiRequest('/sc/cadence', { schema: z.array(cadenceListItemSchema), signal, clientId }),
  });

export const useCadences = (clientId: string) =>
  useQuery({
    ...getCadencesQueryOptions(clientId),
    refetchInterval: (q) => (anySyncing(q.state.data) ? CADENCE_SYNC_POLL_MS : false),
  });
