import { queryOptions, useQuery } from '@tanstack/react-query';
import { landingPageListReply } from '@rally/shared/schemas/content';
import { apiRequest } from '../../../lib/api-client.ts';
import type { ArchivedFilter } from './get-content-items.ts';

export const landingPagesKey = (clientId: string) => ['landing-pages', clientId] as const;

/** GET /v1/rest/client/{id}/landing_page: the client's landing pages. */
export const getLandingPagesQueryOptions = (clientId: string, archived: ArchivedFilter = 'false') =>
  queryOptions({
    queryKey: [...landingPagesKey(clientId), 'list', archived],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/rest/client/${clientId}/landing_page`, {
        query: { archived },
        schema: landingPageListReply,
        signal,
        clientId,
      }),
  });

export const useLandingPages = (clientId: string, archived: ArchivedFilter = 'false') =>
  useQuery(getLandingPagesQueryOptions(clientId, archived));
