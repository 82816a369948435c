import { queryOptions, useQuery } from '@tanstack/react-query';
import { availableFieldsReply } from '@rally/shared/schemas/ad-delivery';
import { apiRequest } from '../../../lib/api-client.ts';

/**
 * GET …/ad_fields/{integrationId}/available: the vendor's person fields that can hold a URL (asked of
 * the vendor; integration.write). Not retried: the server already retried the vendor, and a 409
 * (not connected) is an answer.
 */
export const getAvailableAdFieldsQueryOptions = (clientId: string, integrationId: number) =>
  queryOptions({
    queryKey: ['ad-fields', clientId, 'available', integrationId],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/rest/client/${clientId}/ad_fields/${integrationId}/available`, {
        schema: availableFieldsReply,
        signal,
        clientId,
        retries: 0,
      }),
    staleTime: 60_000,
  });

export const useAvailableAdFields = (clientId: string, integrationId: number, enabled = true) =>
  useQuery({ ...getAvailableAdFieldsQueryOptions(clientId, integrationId), enabled, retry: false });
