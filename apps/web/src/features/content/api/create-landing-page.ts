import { useMutation, useQueryClient } from '@tanstack/react-query';
import { landingPageSchema } from '@rally/shared/schemas/content';
import type { LandingPageCreateBody } from '@rally/shared/schemas/content';
import { apiRequest } from '../../../lib/api-client.ts';
import { landingPagesKey } from './get-landing-pages.ts';

/** POST /v1/rest/client/{id}/landing_page (content.write). */
export const createLandingPage = ({ clientId, body }: { clientId: string; body: LandingPageCreateBody }) =>
  apiRequest(`/v1/rest/client/${clientId}/landing_page`, {
    method: 'POST',
    body,
    schema: landingPageSchema,
    clientId,
    retries: 0,
  });

export function useCreateLandingPage(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: LandingPageCreateBody) => createLandingPage({ clientId, body }),
    meta: { toast: false },
    onSuccess: (page) => {
      queryClient.setQueryData([...landingPagesKey(clientId), 'item', page.id], page);
      return queryClient.invalidateQueries({ queryKey: [...landingPagesKey(clientId), 'list'] });
    },
  });
}
