import { queryOptions, useQuery } from '@tanstack/react-query';
import { setupChecklistSchema } from '@rally/shared/schemas/setup';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /v1/rest/client/{id}/setup: the setup checklist (issue 42 item 5), any member. */
export const getSetupChecklistQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['setup', clientId],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/rest/client/${clientId}/setup`, { schema: setupChecklistSchema, signal, clientId }),
    // Steps are done on other screens: coming back asks again.
    staleTime: 0,
  });

export const useSetupChecklist = (clientId: string) => useQuery(getSetupChecklistQueryOptions(clientId));
