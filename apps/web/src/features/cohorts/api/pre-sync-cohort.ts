import { useQuery } from '@tanstack/react-query';
import { cohortPreSyncReply } from '@rally/shared/schemas/cohorts';
import type { CohortPreSyncBody } from '@rally/shared/schemas/cohorts';
import { apiRequest } from '../../../lib/api-client.ts';

/**
 * POST /v1/marx/client/{id}/cohort/pre_sync: the audience the source would give before saving. A
 * read in all but method, so it is a query keyed by the source (asked again when it changes).
 */
export const usePreSyncEstimate = (clientId: string, body: CohortPreSyncBody | null) =>
  useQuery({
    queryKey: ['cohorts', clientId, 'pre_sync', body],
    enabled: body !== null,
    queryFn: ({ signal }) =>
      apiRequest(`/v1/marx/client/${clientId}/cohort/pre_sync`, {
        method: 'POST',
        body,
        schema: cohortPreSyncReply,
        signal,
        clientId,
        retries: 0,
      }),
  });
