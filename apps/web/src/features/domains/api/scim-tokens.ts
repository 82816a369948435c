import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { scimTokenCreatedReply, scimTokensReply } from '@rally/shared/schemas/scim';
import type { ScimTokenBody, ScimTokens } from '@rally/shared/schemas/scim';
import { apiRequest } from '../../../lib/api-client.ts';

const path = (clientId: string) => `/v1/rest/client/${clientId}/scim-tokens`;

/** GET /rest/client/{id}/scim-tokens (client.write): the SCIM base URL and the tokens, never their secrets. */
export const getScimTokensQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['scim-tokens', clientId],
    queryFn: ({ signal }) => apiRequest(path(clientId), { schema: scimTokensReply, signal, clientId }),
  });

export const useScimTokens = (clientId: string, enabled = true) =>
  useQuery({ ...getScimTokensQueryOptions(clientId), enabled });

/** POST (owners only): the reply holds the token itself, shown this once. Not retried: it would make two. */
export function useCreateScimToken(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ScimTokenBody) =>
      apiRequest(path(clientId), {
        method: 'POST',
        body,
        schema: scimTokenCreatedReply,
        clientId,
        retries: 0,
      }),
    meta: { toast: false },
    onSuccess: (made) =>
      queryClient.setQueryData(getScimTokensQueryOptions(clientId).queryKey, (old: ScimTokens | undefined) =>
        old ? { ...old, tokens: [made.token, ...old.tokens] } : old,
      ),
  });
}

/** DELETE …/{id} (owners only): the token stops working at once. */
export function useRevokeScimToken(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      apiRequest(`${path(clientId)}/${id}`, { method: 'DELETE', clientId }).then(() => id),
    meta: { toast: false },
    onSuccess: () =>
      queryClient.invalidateQueries({ queryKey: getScimTokensQueryOptions(clientId).queryKey }),
  });
}
