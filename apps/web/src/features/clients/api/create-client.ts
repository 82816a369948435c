import { useMutation, useQueryClient } from '@tanstack/react-query';
import { clientSchema } from '@rally/shared/schemas/auth';
import { apiRequest } from '../../../lib/api-client.ts';
import { refreshClients } from '../../../lib/auth/store.ts';
import { getClientsQueryOptions } from './get-clients.ts';

/** POST /v1/rest/client {name} (client.write): a client under the current one, owned by the user. */
export const createClient = (body: { name: string }) =>
  apiRequest('/v1/rest/client', { method: 'POST', body, schema: clientSchema });

export function useCreateClient() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createClient,
    meta: { toast: false },
    // The auth state learns the new membership too, so the header's switcher and Switch know it. The
    // client exists either way: a failed refresh must not turn the creation into an error.
    onSuccess: () =>
      Promise.all([
        refreshClients().catch(() => undefined),
        queryClient.invalidateQueries({ queryKey: getClientsQueryOptions().queryKey }),
      ]),
  });
}
