import { queryOptions, useQuery } from '@tanstack/react-query';
import { prospectSchema } from '@rally/shared/schemas/prospects';
import type { Prospect } from '@rally/shared/schemas/prospects';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /sc/prospects/{id}: the prospect with every cadence entry. */
export const getProspectQueryOptions = (clientId: string, id: string) =>
  queryOptions({
    queryKey: ['prospects', clientId, 'one', id],
    queryFn: ({ signal }) => apiRequest(`/sc/prospects/${id}`, { schema: prospectSchema, signal, clientId }),
  });

/** The row the list already has is shown at once; the drawer then refreshes it. */
export const useProspect = (clientId: string, id: string | null, initial?: Prospect) =>
  useQuery({
    ...getProspectQueryOptions(clientId, id ?? ''),
    enabled: id !== null,
    ...(initial ? { placeholderData: initial } : {}),
  });
