import { useMutation, useQueryClient } from '@tanstack/react-query';
import { salesPrioritySchema } from '@rally/shared/schemas/report-insights';
import { apiRequest } from '../../../lib/api-client.ts';

export type PriorityToggle = { accountId: string; mark: boolean };

/**
 * POST (mark) or DELETE (unmark) /v1/rest/client/{id}/sales/priority for one account (cadence.write).
 * The priority list is asked again: marked accounts' opportunities move to the top.
 */
export function useSalesPriority(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: ['save:sales_priority'],
    mutationFn: ({ accountId, mark }: PriorityToggle) =>
      apiRequest(`/v1/rest/client/${clientId}/sales/priority`, {
        method: mark ? 'POST' : 'DELETE',
        ...(mark ? { body: { account_id: accountId } } : { query: { account_id: accountId } }),
        schema: salesPrioritySchema,
        clientId,
      }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['reports', clientId, 'priority'] }),
  });
}
