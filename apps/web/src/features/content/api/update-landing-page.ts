import { useMutation, useQueryClient } from '@tanstack/react-query';
import { landingPageSchema } from '@rally/shared/schemas/content';
import type { LandingPageUpdateBody } from '@rally/shared/schemas/content';
import { apiRequest } from '../../../lib/api-client.ts';
import { landingPagesKey } from './get-landing-pages.ts';

export type UpdateLandingPageInput = { id: string; body: LandingPageUpdateBody };

/** PATCH /v1/rest/client/{id}/landing_page/{id}: not retried, since 409 means edited elsewhere. */
export function useUpdateLandingPage(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    // Saved while the editor is in use: no auth refresh before it (SPEC.md §8, lib/auth/action-refresh.ts).
    mutationKey: ['update:landing_page'],
    mutationFn: ({ id, body }: UpdateLandingPageInput) =>
      apiRequest(`/v1/rest/client/${clientId}/landing_page/${id}`, {
        method: 'PATCH',
        body,
        schema: landingPageSchema,
        clientId,
        retries: 0,
      }),
    meta: { toast: false },
    onSuccess: (page) => {
      queryClient.setQueryData([...landingPagesKey(clientId), 'item', page.id], page);
      return queryClient.invalidateQueries({ queryKey: [...landingPagesKey(clientId), 'list'] });
    },
  });
}
