import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { sdrNotificationsSchema } from '@rally/shared/schemas/sdr-notifications';
import type { SdrNotificationsBody } from '@rally/shared/schemas/sdr-notifications';
import { apiRequest } from '../../../lib/api-client.ts';

const path = (clientId: string) => `/v1/rest/client/${clientId}/sdr_notifications`;

/** GET /v1/rest/client/{id}/sdr_notifications (reports.read): each active rep's e-mail settings. */
export const sdrNotificationsQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['sdr-notifications', clientId],
    queryFn: ({ signal }) => apiRequest(path(clientId), { schema: sdrNotificationsSchema, signal, clientId }),
  });

export const useSdrNotifications = (clientId: string) => useQuery(sdrNotificationsQueryOptions(clientId));

/** POST …/sdr_notifications (settings.write): the changed reps; the reply is the whole list. */
export function useSaveSdrNotifications(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: ['save:sdr_notifications'],
    mutationFn: (body: SdrNotificationsBody) =>
      apiRequest(path(clientId), { method: 'POST', body, schema: sdrNotificationsSchema, clientId }),
    onSuccess: (data) => queryClient.setQueryData(sdrNotificationsQueryOptions(clientId).queryKey, data),
  });
}
