import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { cohortListReply } from '@rally/shared/schemas/cohorts';
import type { CohortSortField } from '@rally/shared/schemas/cohorts';
import { apiRequest } from '../../../lib/api-client.ts';

export type CohortListParams = {
  page: number;
  pageSize: number;
  name: string;
  showArchived: boolean;
  sortField: CohortSortField;
  order: 'asc' | 'desc';
};

/** While a cohort syncs, the list asks again this often so its size and state follow. */
export const COHORT_SYNC_POLL_MS = 1500;

/** GET /v1/report/client/{id}/cohort: one page of the client's cohorts. */
export const getCohortsQueryOptions = (clientId: string, p: CohortListParams) =>
  queryOptions({
    queryKey: ['cohorts', clientId, 'list', p],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/report/client/${clientId}/cohort`, {
        query: {
          page: p.page,
          page_size: p.pageSize,
          name: p.name || undefined,
          show_archived: p.showArchived,
          sort_field: p.sortField,
          order: p.order,
        },
        schema: cohortListReply,
        signal,
        clientId,
      }),
  });

export const useCohorts = (clientId: string, p: CohortListParams) =>
  useQuery({
    ...getCohortsQueryOptions(clientId, p),
    placeholderData: keepPreviousData,
    refetchInterval: (q) =>
      q.state.data?.items.some((c) => c.sync_state === 'queued' || c.sync_state === 'running')
        ? COHORT_SYNC_POLL_MS
        : false,
  });
