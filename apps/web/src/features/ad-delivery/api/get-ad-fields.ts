import { queryOptions, useQuery } from '@tanstack/react-query';
import { adFieldsListReply } from '@rally/shared/schemas/ad-delivery';
import { apiRequest } from '../../../lib/api-client.ts';

/** How often the list is asked again while a connection is writing (its counts move). */
export const AD_FIELDS_POLL_MS = 3_000;

/** GET /v1/rest/client/{id}/ad_fields: each connection's ad fields and write-back status. */
export const getAdFieldsQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['ad-fields', clientId],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/rest/client/${clientId}/ad_fields`, { schema: adFieldsListReply, signal, clientId }),
  });

export const useAdFields = (clientId: string) =>
  useQuery({
    ...getAdFieldsQueryOptions(clientId),
    refetchInterval: (q) =>
      q.state.data?.items.some((i) => i.status === 'writing') ? AD_FIELDS_POLL_MS : false,
  });
