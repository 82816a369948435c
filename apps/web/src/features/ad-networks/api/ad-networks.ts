import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  adAccountsReply,
  adAudienceListReply,
  adAudiencePreviewReply,
  adAudienceSchema,
  adNetworkListReply,
  adNetworkRedirectReply,
} from '@rally/shared/schemas/ad-networks';
import type { AdNetworkKey } from '@rally/shared/schemas/ad-networks';
import { messageReply } from '@rally/shared/schemas/auth';
import { apiRequest } from '../../../lib/api-client.ts';

/** The ad-network calls under /v1/ad-networks (issue 39, decision 0025). */

export const adNetworksQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['ad-networks', clientId],
    queryFn: ({ signal }) => apiRequest('/v1/ad-networks', { schema: adNetworkListReply, clientId, signal }),
  });
export const useAdNetworks = (clientId: string) => useQuery(adNetworksQueryOptions(clientId));

export const adAccountsQueryOptions = (clientId: string, network: AdNetworkKey) =>
  queryOptions({
    queryKey: ['ad-networks', clientId, network, 'accounts'],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/ad-networks/${network}/accounts`, { schema: adAccountsReply, clientId, signal }),
  });
export const useAdAccounts = (clientId: string, network: AdNetworkKey, enabled: boolean) =>
  useQuery({ ...adAccountsQueryOptions(clientId, network), enabled });

/** Sends the browser to the network's consent screen. */
export function useConnectAdNetwork(clientId: string) {
  return useMutation({
    mutationFn: (network: AdNetworkKey) =>
      apiRequest(`/v1/ad-networks/${network}/redirect`, { schema: adNetworkRedirectReply, clientId }),
    meta: { toast: false },
    onSuccess: (reply) => window.location.assign(reply.redirect_url),
  });
}

function useInvalidate(clientId: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: ['ad-networks', clientId] });
}

export function useChooseAdAccount(clientId: string, network: AdNetworkKey) {
  const invalidate = useInvalidate(clientId);
  return useMutation({
    mutationFn: (body: { ad_account_id: string; page_id: string | null }) =>
      apiRequest(`/v1/ad-networks/${network}`, { method: 'PUT', body, schema: messageReply, clientId }),
    meta: { toast: false },
    onSuccess: invalidate,
  });
}

export function useDisconnectAdNetwork(clientId: string, network: AdNetworkKey) {
  const invalidate = useInvalidate(clientId);
  return useMutation({
    mutationFn: () =>
      apiRequest(`/v1/ad-networks/${network}`, { method: 'DELETE', schema: messageReply, clientId }),
    onSuccess: invalidate,
  });
}

export type AudienceSource = { kind: 'cohort' | 'journey_stage' | 'cadence'; id: string };

export const adAudiencesQueryOptions = (clientId: string, source: AudienceSource) =>
  queryOptions({
    queryKey: ['ad-networks', clientId, 'audiences', source.kind, source.id],
    queryFn: ({ signal }) =>
      apiRequest('/v1/ad-networks/audiences', {
        query: { source_kind: source.kind, source_id: source.id },
        schema: adAudienceListReply,
        clientId,
        signal,
      }),
  });

/** A source's audiences; polls while a push is queued or running. */
export const useAdAudiences = (clientId: string, source: AudienceSource) =>
  useQuery({
    ...adAudiencesQueryOptions(clientId, source),
    refetchInterval: (q) =>
      q.state.data?.some((a) => a.state === 'queued' || a.state === 'pushing' || a.state === 'new')
        ? 1500
        : false,
  });

/**
 * Before launch: the source's size on each connected network beside its minimum, and the pool
 * proposed when it is under it (decision 0034).
 */
export const useAudiencePreview = (clientId: string, source: AudienceSource) =>
  useQuery({
    queryKey: ['ad-networks', clientId, 'audience-preview', source.kind, source.id],
    queryFn: ({ signal }) =>
      apiRequest('/v1/ad-networks/audiences/preview', {
        query: { source_kind: source.kind, source_id: source.id },
        schema: adAudiencePreviewReply,
        clientId,
        signal,
      }),
  });

/** Runs a source on a network; `pool` (sent only when given) chooses pooling under the minimum. */
export function useRunOnNetwork(clientId: string, source: AudienceSource) {
  const invalidate = useInvalidate(clientId);
  return useMutation({
    mutationFn: ({ network, pool }: { network: AdNetworkKey; pool?: boolean }) =>
      apiRequest('/v1/ad-networks/audiences', {
        method: 'POST',
        body: { network, source_kind: source.kind, source_id: source.id, pool },
        schema: adAudienceSchema,
        clientId,
      }),
    meta: { toast: false },
    onSuccess: invalidate,
  });
}

export function usePushAudience(clientId: string) {
  const invalidate = useInvalidate(clientId);
  return useMutation({
    mutationFn: (id: string) =>
      apiRequest(`/v1/ad-networks/audiences/${id}/push`, {
        method: 'POST',
        schema: adAudienceSchema,
        clientId,
      }),
    meta: { toast: false },
    onSuccess: invalidate,
  });
}
