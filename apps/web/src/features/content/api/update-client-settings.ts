import { useMutation, useQueryClient } from '@tanstack/react-query';
import { clientSettingsSchema } from '@rally/shared/schemas/content';
import type { ClientSettingsUpdateBody } from '@rally/shared/schemas/content';
import { apiRequest } from '../../../lib/api-client.ts';
import { getClientSettingsQueryOptions } from './get-client-settings.ts';

/** PUT /v1/rest/client/{id}/settings (settings.write): only the fields given change. */
export function useUpdateClientSettings(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ClientSettingsUpdateBody) =>
      apiRequest(`/v1/rest/client/${clientId}/settings`, {
        method: 'PUT',
        body,
        schema: clientSettingsSchema,
        clientId,
      }),
    meta: { toast: false },
    onSuccess: (settings) =>
      queryClient.setQueryData(getClientSettingsQueryOptions(clientId).queryKey, settings),
  });
}
