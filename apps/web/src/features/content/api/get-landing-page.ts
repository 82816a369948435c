import { queryOptions, useQuery } from '@tanstack/react-query';
import { landingPageSchema } from '@rally/shared/schemas/content';
import { apiRequest } from '../../../lib/api-client.ts';
import { landingPagesKey } from './get-landing-pages.ts';

/** GET /v1/rest/client/{id}/landing_page/{id}. */
export const getLandingPageQueryOptions = (clientId: string, id: string) =>
  queryOptions({
    queryKey: [...landingPagesKey(clientId), 'item', id],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/rest/client/${clientId}/landing_page/${id}`, {
        schema: landingPageSchema,
        signal,
        clientId,
      }),
  });

export const useLandingPage = (clientId: string, id: string) =>
  useQuery(getLandingPageQueryOptions(clientId, id));
