import { useMutation, useQueryClient } from '@tanstack/react-query';
import { contentItemSchema } from '@rally/shared/schemas/content';
import type { ContentCreateBody } from '@rally/shared/schemas/content';
import { apiRequest } from '../../../lib/api-client.ts';
import { contentKey } from './get-content-items.ts';

/** POST /v1/rest/content (content.write): a new draft. */
export const createContentItem = (body: ContentCreateBody) =>
  apiRequest('/v1/rest/content', { method: 'POST', body, schema: contentItemSchema, retries: 0 });

export function useCreateContentItem(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createContentItem,
    meta: { toast: false },
    onSuccess: (item) => {
      queryClient.setQueryData([...contentKey(clientId), 'item', item.id], item);
      return queryClient.invalidateQueries({ queryKey: [...contentKey(clientId), 'list'] });
    },
  });
}
