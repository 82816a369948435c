import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ssoSettingsReply } from '@rally/shared/schemas/sso';
import type { SsoSettings, SsoSettingsBody } from '@rally/shared/schemas/sso';
import { ApiError, apiRequest } from '../../../lib/api-client.ts';

const path = (clientId: string) => `/v1/rest/client/${clientId}/sso`;

/**
 * GET /rest/client/{id}/sso (client.write): the settings without the secret, or null when single
 * sign-on was never set up (the server answers 404 then).
 */
export const getSsoQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['client-sso', clientId],
    queryFn: async ({ signal }): Promise<SsoSettings | null> => {
      try {
        return await apiRequest(path(clientId), { schema: ssoSettingsReply, signal, clientId });
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }
    },
  });

export const useSso = (clientId: string, enabled = true) =>
  useQuery({ ...getSsoQueryOptions(clientId), enabled });

/** PUT (owners only): the secret is sent only when typed; left out, the stored one is kept. */
export function useSaveSso(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: SsoSettingsBody) =>
      apiRequest(path(clientId), { method: 'PUT', body, schema: ssoSettingsReply, clientId, retries: 0 }),
    meta: { toast: false },
    onSuccess: (reply) => queryClient.setQueryData(getSsoQueryOptions(clientId).queryKey, reply),
  });
}
