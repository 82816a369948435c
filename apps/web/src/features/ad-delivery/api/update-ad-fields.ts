import { useMutation, useQueryClient } from '@tanstack/react-query';
import { adFieldsSettingsSchema } from '@rally/shared/schemas/ad-delivery';
import type { AdFieldsBody } from '@rally/shared/schemas/ad-delivery';
import { apiRequest } from '../../../lib/api-client.ts';
import { getAdFieldsQueryOptions } from './get-ad-fields.ts';

/** PUT …/ad_fields/{integrationId}: the two fields and writing on or off (integration.write). */
export function useUpdateAdFields(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ integrationId, ...body }: AdFieldsBody & { integrationId: number }) =>
      apiRequest(`/v1/rest/client/${clientId}/ad_fields/${integrationId}`, {
        method: 'PUT',
        body,
        schema: adFieldsSettingsSchema,
        clientId,
        retries: 0,
      }),
    // The settings panel shows the error beside the fields (a 422 names the field).
    meta: { toast: false },
    onSettled: () => queryClient.invalidateQueries({ queryKey: getAdFieldsQueryOptions(clientId).queryKey }),
  });
}
