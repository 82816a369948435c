import { queryOptions, useQuery } from '@tanstack/react-query';
import { contentItemSchema } from '@rally/shared/schemas/content';
import { apiRequest } from '../../../lib/api-client.ts';
import { contentKey } from './get-content-items.ts';

/** GET /sc/content/{id}: one ad creative with its landing page choice. */
export const getContentItemQueryOptions = (clientId: string, id: string) =>
  queryOptions({
    queryKey: [...contentKey(clientId), 'item', id],
    queryFn: ({ signal }) => apiRequest(`/sc/content/${id}`, { schema: contentItemSchema, signal, clientId }),
  });

export const useContentItem = (clientId: string, id: string) =>
  useQuery(getContentItemQueryOptions(clientId, id));
