import { queryOptions, useQuery } from '@tanstack/react-query';
import { requiredAttentionsSchema } from '@rally/shared/schemas/attention';
import { apiRequest } from '../../../lib/api-client.ts';

/** Problems are fixed on other screens; coming back to the feed asks again, and so does time. */
const REFRESH_MS = 5 * 60_000;

/** GET /v1/rest/client/{id}/required_attentions: what needs a person now (reports.read). */
export const getRequiredAttentionsQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['feed', clientId, 'required-attentions'],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/rest/client/${clientId}/required_attentions`, {
        schema: requiredAttentionsSchema,
        signal,
        clientId,
      }),
    refetchInterval: REFRESH_MS,
  });

export const useRequiredAttentions = (clientId: string, enabled: boolean) =>
  useQuery({ ...getRequiredAttentionsQueryOptions(clientId), enabled });
