import { useMutation, useQueryClient } from '@tanstack/react-query';
import { pbaCohortReply, pbaPeopleReply } from '@rally/shared/schemas/campaigns';
import { apiRequest } from '../../../lib/api-client.ts';

/** POST /v1/rest/content/parse_pba_data with csv: which rows of a list of people are usable. */
export function useCheckPeople(clientId: string) {
  return useMutation({
    mutationFn: (csv: string) =>
      apiRequest('/v1/rest/content/parse_pba_data', {
        method: 'POST',
        body: { csv },
        schema: pbaPeopleReply,
        clientId,
        retries: 0,
      }),
  });
}

/** POST /v1/rest/content/pba with csv: a cohort of the list's usable people. */
export function useCreatePeopleCohort(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { name: string; csv: string; content_id: string | null }) =>
      apiRequest('/v1/rest/content/pba', {
        method: 'POST',
        body,
        schema: pbaCohortReply,
        clientId,
        retries: 0,
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['cohorts', clientId] }),
  });
}
