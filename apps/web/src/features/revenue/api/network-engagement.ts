import { useQuery } from '@tanstack/react-query';
import { companyEngagementReply } from '@rally/shared/schemas/ad-network-campaigns';
import { apiRequest } from '../../../lib/api-client.ts';

/** An account's company-level engagement as the ad networks report it (LinkedIn), by campaign. */
export const useCompanyNetworkEngagement = (clientId: string, companyId: string | null) =>
  useQuery({
    queryKey: ['ad-networks', clientId, 'company-engagement', companyId],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/ad-networks/company-engagement/${companyId}`, {
        schema: companyEngagementReply,
        clientId,
        signal,
      }),
    enabled: companyId !== null,
  });
