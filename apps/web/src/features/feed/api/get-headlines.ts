import { queryOptions, useQuery } from '@tanstack/react-query';
import { engagementLastReply, superTodayReply } from '@rally/shared/schemas/feed';
import { apiRequest } from '../../../lib/api-client.ts';

/** The cards refresh on live items too; this is the floor when nothing arrives. */
const HEADLINE_REFRESH_MS = 60_000;

/** GET /sc/dashboard/super/today: new superprospects today and yesterday. */
export const getSuperTodayQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['feed', clientId, 'super-today'],
    queryFn: ({ signal }) =>
      apiRequest('/sc/dashboard/super/today', { schema: superTodayReply, signal, clientId }),
    refetchInterval: HEADLINE_REFRESH_MS,
  });

/** GET /sc/dashboard/engagement/last: the last 7 days against the 7 before, and the latest event. */
export const getEngagementLastQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['feed', clientId, 'engagement-last'],
    queryFn: ({ signal }) =>
      apiRequest('/sc/dashboard/engagement/last', { schema: engagementLastReply, signal, clientId }),
    refetchInterval: HEADLINE_REFRESH_MS,
  });

export const useSuperToday = (clientId: string) => useQuery(getSuperTodayQueryOptions(clientId));
export const useEngagementLast = (clientId: string) => useQuery(getEngagementLastQueryOptions(clientId));
