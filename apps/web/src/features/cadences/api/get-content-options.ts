import { queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { ApiError, apiRequest } from '../../../lib/api-client.ts';

/** The few fields a day's content picker needs; the content studio owns the full shape. */
const contentOptionSchema = z.object({
  id: z.string(),
  name: z.string().nullable().optional(),
  title: z.string().optional(),
  status: z.string(),
  is_archived: z.boolean().optional(),
});
export type ContentOption = z.infer<typeof contentOptionSchema>;

const contentListSchema = z.object({ items: z.array(contentOptionSchema) });

export const contentLabel = (c: ContentOption) => c.name?.trim() || c.title?.trim() || 'Untitled content';

/**
 * GET /sc/content?status=published: the client's published, unarchived content, to assign to days.
 * A server without the content studio answers 404: that reads as "no content yet", not an error.
 */
export const getContentOptionsQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['content', clientId, 'published'],
    queryFn: async ({ signal }): Promise<ContentOption[]> => {
      try {
        const reply = await apiRequest('/sc/content', {
          query: { status: 'published' },
          schema: contentListSchema,
          signal,
          clientId,
        });
        return reply.items.filter((c) => c.status === 'published' && !c.is_archived);
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return [];
        throw err;
      }
    },
  });

export const useContentOptions = (clientId: string) => useQuery(getContentOptionsQueryOptions(clientId));
