import { useMutation, useQueryClient } from '@tanstack/react-query';
import { adFieldsCreateError, adFieldsSettingsSchema } from '@rally/shared/schemas/ad-delivery';
import { ApiError, apiRequest } from '../../../lib/api-client.ts';
import { getAdFieldsQueryOptions } from './get-ad-fields.ts';

/**
 * POST …/ad_fields/{integrationId}/create: Rally creates the two fields in the vendor, sets them and
 * turns writing on. A 422 carries what the owner creates instead (`createFieldsInstructions`).
 */
export function useCreateAdFields(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (integrationId: number) =>
      apiRequest(`/v1/rest/client/${clientId}/ad_fields/${integrationId}/create`, {
        method: 'POST',
        schema: adFieldsSettingsSchema,
        clientId,
        retries: 0,
      }),
    meta: { toast: false },
    onSettled: () => queryClient.invalidateQueries({ queryKey: getAdFieldsQueryOptions(clientId).queryKey }),
  });
}

/** The instructions of a refused create (422), or null for any other failure. */
export function createFieldsInstructions(error: unknown): string | null {
  if (!(error instanceof ApiError) || error.status !== 422) return null;
  const parsed = adFieldsCreateError.safeParse(error.data);
  return parsed.success ? (parsed.data.instructions ?? null) : null;
}
