import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { clientDomainSchema, clientDomainsReply } from '@rally/shared/schemas/domains';
import type { ClientDomain, ClientDomains } from '@rally/shared/schemas/domains';
import { apiRequest } from '../../../lib/api-client.ts';

const path = (clientId: string) => `/v1/rest/client/${clientId}/domains`;

/** GET /rest/client/{id}/domains: the client's TXT value and each domain with its last check. */
export const getDomainsQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['client-domains', clientId],
    queryFn: ({ signal }) => apiRequest(path(clientId), { schema: clientDomainsReply, signal, clientId }),
  });

export const useDomains = (clientId: string) => useQuery(getDomainsQueryOptions(clientId));

/** Puts a changed domain into the cached list (added at the end when new). */
function useStoreDomain(clientId: string) {
  const queryClient = useQueryClient();
  return (domain: ClientDomain) => {
    queryClient.setQueryData(getDomainsQueryOptions(clientId).queryKey, (old: ClientDomains | undefined) => {
      if (!old) return old;
      const known = old.domains.some((d) => d.id === domain.id);
      return {
        ...old,
        domains: known ? old.domains.map((d) => (d.id === domain.id ? domain : d)) : [...old.domains, domain],
      };
    });
    // The single sign-on panel lists the verified domains it speaks for.
    void queryClient.invalidateQueries({ queryKey: ['client-sso', clientId] });
  };
}

/** POST: add a domain, unverified until its TXT record is found. Not retried: a 409 is an answer. */
export function useAddDomain(clientId: string) {
  const store = useStoreDomain(clientId);
  return useMutation({
    mutationFn: (domain: string) =>
      apiRequest(path(clientId), {
        method: 'POST',
        body: { domain },
        schema: clientDomainSchema,
        clientId,
        retries: 0,
      }),
    meta: { toast: false },
    onSuccess: store,
  });
}

/** POST …/{id}/verify: look the TXT record up now; the reply says what was found. */
export function useVerifyDomain(clientId: string) {
  const store = useStoreDomain(clientId);
  return useMutation({
    mutationFn: (id: string) =>
      apiRequest(`${path(clientId)}/${id}/verify`, {
        method: 'POST',
        schema: clientDomainSchema,
        clientId,
        retries: 0,
      }),
    meta: { toast: false },
    onSuccess: store,
  });
}

/** DELETE …/{id}: single sign-on stops vouching for the domain's addresses. */
export function useRemoveDomain(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      apiRequest(`${path(clientId)}/${id}`, { method: 'DELETE', clientId }).then(() => id),
    meta: { toast: false },
    onSuccess: (id) => {
      queryClient.setQueryData(getDomainsQueryOptions(clientId).queryKey, (old: ClientDomains | undefined) =>
        old ? { ...old, domains: old.domains.filter((d) => d.id !== id) } : old,
      );
      void queryClient.invalidateQueries({ queryKey: ['client-sso', clientId] });
    },
  });
}
