import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';
import { contentKey } from './get-content-items.ts';

/** DELETE /v1/rest/content/{id}: 409 while a cadence day shows it (the message names the days). */
export const deleteContentItem = (id: string) =>
  apiRequest(`/v1/rest/content/${id}`, { method: 'DELETE', retries: 0 });

export function useDeleteContentItem(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteContentItem,
    meta: { toast: false },
    onSuccess: (_r, id) => {
      queryClient.removeQueries({ queryKey: [...contentKey(clientId), 'item', id] });
      return queryClient.invalidateQueries({ queryKey: contentKey(clientId) });
    },
  });
}
