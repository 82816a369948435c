import { queryOptions, useQuery } from '@tanstack/react-query';
import { contentListReply } from '@rally/shared/schemas/content';
import { apiRequest } from '../../../lib/api-client.ts';

export type ArchivedFilter = 'false' | 'only';

/** Every content query of a client starts with this key, so a change refreshes them all. */
export const contentKey = (clientId: string) => ['content', clientId] as const;

/** GET /sc/content: the client's ad creatives (archived ones only when asked for). */
export const getContentItemsQueryOptions = (clientId: string, archived: ArchivedFilter) =>
  queryOptions({
    queryKey: [...contentKey(clientId), 'list', archived],
    queryFn: ({ signal }) =>
      apiRequest('/sc/content', { query: { archived }, schema: contentListReply, signal, clientId }),
  });

export const useContentItems = (clientId: string, archived: ArchivedFilter) =>
  useQuery(getContentItemsQueryOptions(clientId, archived));
