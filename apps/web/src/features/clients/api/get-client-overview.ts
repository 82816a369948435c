import { queryOptions, useQuery } from '@tanstack/react-query';
import { clientOverviewReply } from '@rally/shared/schemas/client-overview';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /v1/rest/client/overview: the agency view, per client of the user (issue 42 item 13). */
export const getClientOverviewQueryOptions = (days = 30) =>
  queryOptions({
    queryKey: ['client', 'overview', days],
    queryFn: ({ signal }) =>
      apiRequest('/v1/rest/client/overview', { query: { days }, schema: clientOverviewReply, signal }),
  });

export const useClientOverview = (days = 30) => useQuery(getClientOverviewQueryOptions(days));
