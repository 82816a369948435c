import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { oauthIdentitiesReply, oauthLinkReply } from '@rally/shared/schemas/sso';
import type { OAuthProvider } from '@rally/shared/schemas/sso';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /v1/api/auth/identities: the Google and Microsoft accounts that sign the user in. */
export const signInAccountsQueryOptions = () =>
  queryOptions({
    queryKey: ['auth', 'identities'],
    queryFn: ({ signal }) => apiRequest('/v1/api/auth/identities', { schema: oauthIdentitiesReply, signal }),
  });

export const useSignInAccounts = () => useQuery(signInAccountsQueryOptions());

/** POST /v1/api/auth/{provider}/link, then off to the provider (it returns to /settings/profile). */
export function useLinkProvider() {
  return useMutation({
    mutationFn: (provider: OAuthProvider) =>
      apiRequest(`/v1/api/auth/${provider}/link`, { method: 'POST', schema: oauthLinkReply, retries: 0 }),
    onSuccess: ({ url }) => window.location.assign(url),
  });
}

/** DELETE /v1/api/auth/{provider}/link: that account no longer signs the user in. */
export function useUnlinkProvider() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (provider: OAuthProvider) =>
      apiRequest(`/v1/api/auth/${provider}/link`, { method: 'DELETE', retries: 0 }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['auth', 'identities'] }),
  });
}
