import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { campaignSchema } from '@rally/shared/schemas/campaigns';
import type { Campaign, CampaignCreateBody, CampaignUpdateBody } from '@rally/shared/schemas/campaigns';
import { cohortSchema } from '@rally/shared/schemas/cohorts';
import { ApiError, apiRequest } from '../../../lib/api-client.ts';

export const campaignHref = (clientId: string, id: string) => `/campaigns/${id}?client_id=${clientId}`;

/** GET /v1/rest/campaign/{id}. */
export const getCampaignQueryOptions = (clientId: string, id: string) =>
  queryOptions({
    queryKey: ['campaigns', clientId, 'one', id],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/rest/campaign/${id}`, { schema: campaignSchema, signal, clientId }),
  });
export const useCampaign = (clientId: string, id: string) => useQuery(getCampaignQueryOptions(clientId, id));

/** GET /v1/api/cohort/{id}: the cohort a new campaign is for (same key as the cohort page's query). */
export const useCampaignCohort = (clientId: string, id: string) =>
  useQuery({
    queryKey: ['cohorts', clientId, 'one', id],
    queryFn: ({ signal }) => apiRequest(`/v1/api/cohort/${id}`, { schema: cohortSchema, signal, clientId }),
  });

/** POST /v1/rest/campaign. */
export function useCreateCampaign(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CampaignCreateBody) =>
      apiRequest('/v1/rest/campaign', { method: 'POST', body, schema: campaignSchema, clientId, retries: 0 }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['campaigns', clientId] }),
  });
}

/** PATCH /v1/rest/campaign/{id}. */
export function useUpdateCampaign(clientId: string, id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CampaignUpdateBody) =>
      apiRequest(`/v1/rest/campaign/${id}`, {
        method: 'PATCH',
        body,
        schema: campaignSchema,
        clientId,
        retries: 0,
      }),
    onSuccess: (campaign) => {
      queryClient.setQueryData(getCampaignQueryOptions(clientId, id).queryKey, campaign);
      return queryClient.invalidateQueries({ queryKey: ['campaigns', clientId] });
    },
  });
}

/**
 * GET /v1/download/{id}: the zip of the campaign's ads. The call needs the x-client-id header, so the
 * file is fetched and handed to the browser rather than linked.
 */
export async function downloadAds(clientId: string, campaign: Campaign): Promise<void> {
  if (!campaign.download_url) return;
  const blob = (await apiRequest(campaign.download_url, { clientId, responseType: 'blob' })) as Blob;
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = `${campaign.name.replace(/[^\w-]+/g, '-').replace(/^-+|-+$/g, '') || 'campaign'}-ads.zip`;
  document.body.append(a);
  a.click();
  a.remove();
  // Revoked after the click has handed the file over.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

const contentOption = z.object({
  id: z.string(),
  name: z.string().nullable().optional(),
  title: z.string().optional(),
  status: z.string(),
  is_archived: z.boolean().optional(),
});
/** GET /sc/content?status=published: the content a campaign can run. */
export const useCampaignContentOptions = (clientId: string) =>
  useQuery({
    queryKey: ['campaigns', clientId, 'content_options'],
    queryFn: async ({ signal }) => {
      try {
        const reply = await apiRequest('/sc/content', {
          query: { status: 'published' },
          schema: z.object({ items: z.array(contentOption) }),
          signal,
          clientId,
        });
        return reply.items
          .filter((c) => c.status === 'published' && !c.is_archived)
          .map((c) => ({ id: c.id, label: c.name?.trim() || c.title?.trim() || 'Untitled content' }));
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return [];
        throw err;
      }
    },
  });
