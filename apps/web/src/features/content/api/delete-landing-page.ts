import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';
import { landingPagesKey } from './get-landing-pages.ts';

/** DELETE /v1/rest/client/{id}/landing_page/{id}: 409 while content links to it. */
export function useDeleteLandingPage(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      apiRequest(`/v1/rest/client/${clientId}/landing_page/${id}`, {
        method: 'DELETE',
        clientId,
        retries: 0,
      }),
    meta: { toast: false },
    onSuccess: (_r, id) => {
      queryClient.removeQueries({ queryKey: [...landingPagesKey(clientId), 'item', id] });
      return queryClient.invalidateQueries({ queryKey: [...landingPagesKey(clientId), 'list'] });
    },
  });
}
