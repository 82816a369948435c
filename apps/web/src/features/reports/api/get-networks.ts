import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { networkReportSchema } from '@rally/shared/schemas/network-report';
import { apiRequest } from '../../../lib/api-client.ts';
import type { Range } from './get-insights.ts';

/** GET /report/client/{id}/networks: each network campaign's reported results on the range's days. */
export const useNetworkReport = (clientId: string, range: Range) =>
  useQuery({
    queryKey: ['reports', clientId, 'networks', range],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/report/client/${clientId}/networks`, {
        query: range,
        schema: networkReportSchema,
        signal,
        clientId,
      }),
    placeholderData: keepPreviousData,
  });
