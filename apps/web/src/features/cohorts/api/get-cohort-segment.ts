import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { cohortSegmentReply } from '@rally/shared/schemas/cohorts';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /v1/rest/cohort/{id}/segment: one page of members, most engaged first. */
export const getCohortSegmentQueryOptions = (clientId: string, id: string, page: number, pageSize: number) =>
  queryOptions({
    queryKey: ['cohorts', clientId, 'one', id, 'segment', page, pageSize],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/rest/cohort/${id}/segment`, {
        query: { page, page_size: pageSize },
        schema: cohortSegmentReply,
        signal,
        clientId,
      }),
  });

export const useCohortSegment = (clientId: string, id: string, page: number, pageSize: number) =>
  useQuery({
    ...getCohortSegmentQueryOptions(clientId, id, page, pageSize),
    placeholderData: keepPreviousData,
  });
