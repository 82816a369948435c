import { useQuery } from '@tanstack/react-query';
import { campaignListReply } from '@rally/shared/schemas/campaigns';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /v1/rest/campaign?cohort_id=: the cohort's campaigns, newest first (one page of 100). */
export const useCohortCampaigns = (clientId: string, cohortId: string) =>
  useQuery({
    queryKey: ['campaigns', clientId, 'cohort', cohortId],
    queryFn: ({ signal }) =>
      apiRequest('/v1/rest/campaign', {
        query: { cohort_id: cohortId, page_size: 100 },
        schema: campaignListReply,
        signal,
        clientId,
      }),
  });
