import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { landingDomainCheckReply, landingDomainReply } from '@rally/shared/schemas/content';
import type { LandingDomain } from '@rally/shared/schemas/content';
import { apiRequest } from '../../../lib/api-client.ts';

const path = (clientId: string) => `/sc/client/${clientId}/landing_domain`;

/** GET /sc/client/{id}/landing_domain: the domain, the DNS record to create, verified or not. */
export const getLandingDomainQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['landing-domain', clientId],
    queryFn: ({ signal }) => apiRequest(path(clientId), { schema: landingDomainReply, signal, clientId }),
  });

export const useLandingDomain = (clientId: string) => useQuery(getLandingDomainQueryOptions(clientId));

function useDomainMutation<V>(clientId: string, call: (v: V) => Promise<LandingDomain>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    meta: { toast: false },
    onSuccess: (domain) => {
      const {
        resolved: _r,
        message: _m,
        ...reply
      } = domain as LandingDomain & {
        resolved?: unknown;
        message?: unknown;
      };
      queryClient.setQueryData(getLandingDomainQueryOptions(clientId).queryKey, reply);
    },
  });
}

/** PUT: set the domain (lower-cased; unverified until a check finds it). */
export const useSetLandingDomain = (clientId: string) =>
  useDomainMutation(clientId, (domain: string) =>
    apiRequest(path(clientId), {
      method: 'PUT',
      body: { domain },
      schema: landingDomainReply,
      clientId,
      retries: 0,
    }),
  );

/** DELETE: stop serving landing pages on the domain. */
export const useRemoveLandingDomain = (clientId: string) =>
  useDomainMutation(clientId, () =>
    apiRequest(path(clientId), { method: 'DELETE', schema: landingDomainReply, clientId }),
  );

/** POST …/check: resolve the domain now; the reply says what it found and why it is (not) verified. */
export function useCheckLandingDomain(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () =>
      apiRequest(`${path(clientId)}/check`, {
        method: 'POST',
        schema: landingDomainCheckReply,
        clientId,
        retries: 0,
      }),
    meta: { toast: false },
    onSuccess: ({ resolved: _r, message: _m, ...domain }) =>
      queryClient.setQueryData(getLandingDomainQueryOptions(clientId).queryKey, domain),
  });
}
