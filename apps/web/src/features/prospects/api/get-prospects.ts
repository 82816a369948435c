import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { prospectListReply } from '@rally/shared/schemas/prospects';
import type { ProspectSort, SortOrder } from '@rally/shared/schemas/prospects';
import { apiRequest } from '../../../lib/api-client.ts';

/** The list's search, filters and sort (the URL of the screen holds them). */
export type ProspectListParams = {
  search: string;
  sort: ProspectSort;
  order: SortOrder;
  cadenceId: number | null;
  salesRepId: string | null;
  /** Only the signed-in user's own prospects (the reps with their e-mail). */
  mine: boolean;
  isSuper: boolean | null;
  isActive: boolean | null;
  pageSize: number;
};

/** GET /sc/prospects: one page after `cursor` (null: the first). */
export const getProspectsQueryOptions = (
  clientId: string,
  params: ProspectListParams,
  cursor: string | null,
) =>
  queryOptions({
    queryKey: ['prospects', clientId, 'list', params, cursor],
    queryFn: ({ signal }) =>
      apiRequest('/sc/prospects', {
        query: {
          search: params.search || undefined,
          sort: params.sort,
          order: params.order,
          cadence_id: params.cadenceId ?? undefined,
          sales_rep_id: params.salesRepId ?? undefined,
          mine: params.mine ? 'true' : undefined,
          super: params.isSuper ?? undefined,
          active: params.isActive ?? undefined,
          page_size: params.pageSize,
          cursor: cursor ?? undefined,
        },
        schema: prospectListReply,
        signal,
        clientId,
      }),
  });

/** Keeps the last page on screen while the next one (or a new search) loads. */
export const useProspects = (clientId: string, params: ProspectListParams, cursor: string | null) =>
  useQuery({ ...getProspectsQueryOptions(clientId, params, cursor), placeholderData: keepPreviousData });
