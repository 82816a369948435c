import { queryOptions, useQuery } from '@tanstack/react-query';
import { clientSettingsSchema } from '@rally/shared/schemas/content';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /v1/rest/client/{id}/settings: brand settings (defaults while none are saved). */
export const getClientSettingsQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['client-settings', clientId],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/rest/client/${clientId}/settings`, { schema: clientSettingsSchema, signal, clientId }),
  });

export const useClientSettings = (clientId: string) => useQuery(getClientSettingsQueryOptions(clientId));
