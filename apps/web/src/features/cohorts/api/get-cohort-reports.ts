import { queryOptions, useQuery } from '@tanstack/react-query';
import { cohortAudienceReport, cohortImpactReply } from '@rally/shared/schemas/cohorts';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /v1/report/cohort/{id}/audience: members by title and by company. */
export const getCohortAudienceQueryOptions = (clientId: string, id: string) =>
  queryOptions({
    queryKey: ['cohorts', clientId, 'one', id, 'audience'],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/report/cohort/${id}/audience`, { schema: cohortAudienceReport, signal, clientId }),
  });
export const useCohortAudience = (clientId: string, id: string) =>
  useQuery(getCohortAudienceQueryOptions(clientId, id));

/** GET /v1/report/cohort/{id}/impact/by_date over the last `days` days (epoch seconds, SPEC.md §9). */
export const getCohortImpactQueryOptions = (clientId: string, id: string, days: number) =>
  queryOptions({
    queryKey: ['cohorts', clientId, 'one', id, 'impact', days],
    queryFn: ({ signal }) => {
      const to = Math.ceil(Date.now() / 86_400_000) * 86_400;
      return apiRequest(`/v1/report/cohort/${id}/impact/by_date`, {
        query: { from: to - days * 86_400, to },
        schema: cohortImpactReply,
        signal,
        clientId,
      });
    },
  });
export const useCohortImpact = (clientId: string, id: string, days: number) =>
  useQuery(getCohortImpactQueryOptions(clientId, id, days));
