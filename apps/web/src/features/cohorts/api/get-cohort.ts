import { queryOptions, useQuery } from '@tanstack/react-query';
import { cohortSchema } from '@rally/shared/schemas/cohorts';
import { apiRequest } from '../../../lib/api-client.ts';
import { COHORT_SYNC_POLL_MS } from './get-cohorts.ts';

/** GET /v1/api/cohort/{id}: one cohort; asked again while it syncs. */
export const getCohortQueryOptions = (clientId: string, id: string) =>
  queryOptions({
    queryKey: ['cohorts', clientId, 'one', id],
    queryFn: ({ signal }) => apiRequest(`/v1/api/cohort/${id}`, { schema: cohortSchema, signal, clientId }),
  });

export const useCohort = (clientId: string, id: string) =>
  useQuery({
    ...getCohortQueryOptions(clientId, id),
    refetchInterval: (q) =>
      q.state.data?.sync_state === 'queued' || q.state.data?.sync_state === 'running'
        ? COHORT_SYNC_POLL_MS
        : false,
  });
