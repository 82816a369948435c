import { useMutation, useQueryClient } from '@tanstack/react-query';
import { contentItemSchema } from '@rally/shared/schemas/content';
import type { ContentUpdateBody } from '@rally/shared/schemas/content';
import { apiRequest } from '../../../lib/api-client.ts';
import { contentKey } from './get-content-items.ts';

export type UpdateContentInput = { id: string; body: ContentUpdateBody };

/**
 * PATCH /v1/rest/content/{id} (content.write): fields, draft ↔ published, archive ↔ unarchive.
 * Not retried: a 409 here means someone else saved first (the body carries updated_at), and a
 * retry would only say so again.
 */
export const updateContentItem = ({ id, body }: UpdateContentInput) =>
  apiRequest(`/v1/rest/content/${id}`, {
    method: 'PATCH',
    body,
    schema: contentItemSchema,
    retries: 0,
  });

export function useUpdateContentItem(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    // Saved while the editor is in use: no auth refresh before it (SPEC.md §8, lib/auth/action-refresh.ts).
    mutationKey: ['update:content'],
    mutationFn: updateContentItem,
    meta: { toast: false },
    onSuccess: (item) => {
      queryClient.setQueryData([...contentKey(clientId), 'item', item.id], item);
      // Lists (this studio's and the cadence day picker's) show status and archive state.
      return queryClient.invalidateQueries({
        queryKey: contentKey(clientId),
        predicate: (q) => q.queryKey[2] !== 'item',
      });
    },
  });
}
