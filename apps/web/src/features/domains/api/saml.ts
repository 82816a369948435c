import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { samlSettingsReply } from '@rally/shared/schemas/saml';
import type { SamlSettings, SamlSettingsBody } from '@rally/shared/schemas/saml';
import { ApiError, apiRequest } from '../../../lib/api-client.ts';

const path = (clientId: string) => `/v1/rest/client/${clientId}/saml`;

/** GET /rest/client/{id}/saml (client.write): the settings, or null when SAML was never set up (404). */
export const getSamlQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['client-saml', clientId],
    queryFn: async ({ signal }): Promise<SamlSettings | null> => {
      try {
        return await apiRequest(path(clientId), { schema: samlSettingsReply, signal, clientId });
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }
    },
  });

export const useSaml = (clientId: string, enabled = true) =>
  useQuery({ ...getSamlQueryOptions(clientId), enabled });

/** PUT (owners only). */
export function useSaveSaml(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: SamlSettingsBody) =>
      apiRequest(path(clientId), { method: 'PUT', body, schema: samlSettingsReply, clientId, retries: 0 }),
    meta: { toast: false },
    onSuccess: (reply) => queryClient.setQueryData(getSamlQueryOptions(clientId).queryKey, reply),
  });
}
