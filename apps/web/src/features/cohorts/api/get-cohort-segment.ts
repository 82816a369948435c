import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { cohortSegmentReply } from '@rally/shared/schemas/cohorts';
import type { CohortMemberSort } from '@rally/shared/schemas/cohorts';

type MemberSort = { sort: CohortMemberSort; order: 'asc' | 'desc' };
const ENGAGED_FIRST: MemberSort = { sort: 'engagement', order: 'desc' };
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /v1/rest/cohort/{id}/segment: one page of members, most engaged first unless sorted. */
export const getCohortSegmentQueryOptions = (
  clientId: string,
  id: string,
  page: number,
  pageSize: number,
  sort: MemberSort = ENGAGED_FIRST,
) =>
  queryOptions({
    queryKey: ['cohorts', clientId, 'one', id, 'segment', page, pageSize, sort],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/rest/cohort/${id}/segment`, {
        query: { page, page_size: pageSize, ...sort },
        schema: cohortSegmentReply,
        signal,
        clientId,
      }),
  });

export const useCohortSegment = (
  clientId: string,
  id: string,
  page: number,
  pageSize: number,
  sort: MemberSort = ENGAGED_FIRST,
) =>
  useQuery({
    ...getCohortSegmentQueryOptions(clientId, id, page, pageSize, sort),
    placeholderData: keepPreviousData,
  });
