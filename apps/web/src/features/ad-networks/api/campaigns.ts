import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  adCampaignListReply,
  adCampaignOptionsReply,
  adCampaignCompaniesReply,
  adCampaignSchema,
  adCampaignStatsReply,
} from '@rally/shared/schemas/ad-network-campaigns';
import type { AdCampaign, AdCampaignCreateBody } from '@rally/shared/schemas/ad-network-campaigns';
import type { AdNetworkKey } from '@rally/shared/schemas/ad-networks';
import { contentListReply } from '@rally/shared/schemas/content';
import { apiBlob, apiRequest } from '../../../lib/api-client.ts';
import { saveBlob } from '../../../lib/save-blob.ts';

/** Campaigns on ad networks under /v1/ad-networks/campaigns (issue 39, decision 0026). */

export const networkCampaignHref = (clientId: string, id: string) =>
  `/network-campaigns/${id}?client_id=${clientId}`;

/** Still being made or changed at the network: worth asking again soon. */
export const isSyncing = (c: AdCampaign) => c.sync_state === 'queued' || c.sync_state === 'pushing';

export const campaignOptionsQueryOptions = (clientId: string, network: AdNetworkKey) =>
  queryOptions({
    queryKey: ['ad-networks', clientId, network, 'campaign-options'],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/ad-networks/${network}/campaign-options`, {
        schema: adCampaignOptionsReply,
        clientId,
        signal,
      }),
  });
export const useCampaignOptions = (clientId: string, network: AdNetworkKey, enabled = true) =>
  useQuery({ ...campaignOptionsQueryOptions(clientId, network), enabled });

/** An audience's campaigns; polls while one is being synced. */
export const useAudienceCampaigns = (clientId: string, audienceId: string) =>
  useQuery({
    queryKey: ['ad-networks', clientId, 'campaigns', 'audience', audienceId],
    queryFn: ({ signal }) =>
      apiRequest('/v1/ad-networks/campaigns', {
        query: { audience_id: audienceId },
        schema: adCampaignListReply,
        clientId,
        signal,
      }),
    refetchInterval: (q) => (q.state.data?.some(isSyncing) ? 1500 : false),
  });

export const useNetworkCampaign = (clientId: string, id: string) =>
  useQuery({
    queryKey: ['ad-networks', clientId, 'campaigns', id],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/ad-networks/campaigns/${id}`, { schema: adCampaignSchema, clientId, signal }),
    refetchInterval: (q) => (q.state.data && isSyncing(q.state.data) ? 1500 : false),
  });

function useInvalidate(clientId: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: ['ad-networks', clientId] });
}

export function useCreateNetworkCampaign(clientId: string) {
  const invalidate = useInvalidate(clientId);
  return useMutation({
    mutationFn: (body: AdCampaignCreateBody) =>
      apiRequest('/v1/ad-networks/campaigns', { method: 'POST', body, schema: adCampaignSchema, clientId }),
    meta: { toast: false },
    onSuccess: invalidate,
  });
}

/** Launch, pause, or bring up to date (sync) a campaign at its network. */
export function useNetworkCampaignAction(clientId: string, id: string) {
  const invalidate = useInvalidate(clientId);
  return useMutation({
    mutationFn: (action: 'launch' | 'pause' | 'sync') =>
      apiRequest(`/v1/ad-networks/campaigns/${id}/${action}`, {
        method: 'POST',
        schema: adCampaignSchema,
        clientId,
      }),
    meta: { toast: false },
    onSuccess: invalidate,
  });
}

/** The client's ads a campaign can show (GET /sc/content, not archived), with their preview paths. */
export const useCampaignAds = (clientId: string) =>
  useQuery({
    // The content feature's key for the same list, so both share one cache entry.
    queryKey: ['content', clientId, 'list', 'false'],
    queryFn: ({ signal }) =>
      apiRequest('/sc/content', { query: { archived: 'false' }, schema: contentListReply, clientId, signal }),
  });

/** A campaign's daily results as the network reported them (pulled hourly by a job). */
export const useNetworkCampaignStats = (clientId: string, id: string) =>
  useQuery({
    queryKey: ['ad-networks', clientId, 'campaigns', id, 'stats'],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/ad-networks/campaigns/${id}/stats`, { schema: adCampaignStatsReply, clientId, signal }),
  });

/** Pulls the results from the network now (cohort.write). */
export function usePullNetworkCampaignStats(clientId: string, id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () =>
      apiRequest(`/v1/ad-networks/campaigns/${id}/stats/pull`, {
        method: 'POST',
        schema: adCampaignStatsReply,
        clientId,
      }),
    meta: { toast: false },
    onSuccess: (data) => {
      queryClient.setQueryData(['ad-networks', clientId, 'campaigns', id, 'stats'], data);
      // A pull also brings the companies (LinkedIn): ask for them again.
      void queryClient.invalidateQueries({
        queryKey: ['ad-networks', clientId, 'campaigns', id, 'companies'],
      });
    },
  });
}

/** The companies a campaign reached, as the network reports them (LinkedIn's company-level results). */
export const useNetworkCampaignCompanies = (clientId: string, id: string, enabled = true) =>
  useQuery({
    queryKey: ['ad-networks', clientId, 'campaigns', id, 'companies'],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/ad-networks/campaigns/${id}/companies`, {
        schema: adCampaignCompaniesReply,
        clientId,
        signal,
      }),
    enabled,
  });

export async function downloadNetworkCampaignStats(clientId: string, id: string, filename: string) {
  saveBlob(await apiBlob(`/v1/ad-networks/campaigns/${id}/stats.csv`, { clientId }), filename);
}
