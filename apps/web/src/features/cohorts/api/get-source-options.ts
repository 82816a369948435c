import { queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { crmListPage } from '@rally/shared/schemas/crm';
import { ApiError, apiRequest } from '../../../lib/api-client.ts';

/** GET /v1/rest/crm_list: the client's CRM lists and campaigns, a cohort's possible sources. */
export const getCrmListsQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['cohorts', clientId, 'crm_lists'],
    queryFn: ({ signal }) =>
      apiRequest('/v1/rest/crm_list', { query: { page_size: 200 }, schema: crmListPage, signal, clientId }),
  });
export const useCrmLists = (clientId: string) => useQuery(getCrmListsQueryOptions(clientId));

const cadenceOption = z.object({ id: z.number(), name: z.string() });
/** GET /sc/cadence: the cadences a filter can name (only id and name are read here). */
export const useCadenceOptions = (clientId: string) =>
  useQuery({
    queryKey: ['cohorts', clientId, 'cadence_options'],
    queryFn: ({ signal }) =>
      apiRequest('/sc/cadence', { schema: z.array(cadenceOption.passthrough()), signal, clientId }),
    select: (list) => list.map((c) => ({ id: c.id, name: c.name })),
  });

const contentOption = z.object({
  id: z.string(),
  name: z.string().nullable().optional(),
  title: z.string().optional(),
  status: z.string(),
  is_archived: z.boolean().optional(),
});
/** GET /sc/content?status=published: the content a cohort's ads can show. */
export const useContentOptions = (clientId: string) =>
  useQuery({
    queryKey: ['cohorts', clientId, 'content_options'],
    queryFn: async ({ signal }) => {
      try {
        const reply = await apiRequest('/sc/content', {
          query: { status: 'published' },
          schema: z.object({ items: z.array(contentOption) }),
          signal,
          clientId,
        });
        return reply.items
          .filter((c) => c.status === 'published' && !c.is_archived)
          .map((c) => ({ id: c.id, label: c.name?.trim() || c.title?.trim() || 'Untitled content' }));
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return [];
        throw err;
      }
    },
  });
