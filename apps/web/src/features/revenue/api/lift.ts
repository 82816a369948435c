import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { holdoutListSchema, holdoutSchema, liftReportSchema } from '@rally/shared/schemas/lift';
import type { HoldoutBody } from '@rally/shared/schemas/lift';
import { apiBlob, apiRequest } from '../../../lib/api-client.ts';
import { saveBlob } from './get-reports.ts';

/** What the lift report compares: the whole client, one cadence or one cohort (issue 45). */
export type LiftScope = { scope: 'client' } | { scope: 'cadence' | 'cohort'; id: string };

const liftQuery = (s: LiftScope) =>
  s.scope === 'client' ? { scope: 'client' } : { scope: s.scope, id: s.id };

export const useLift = (clientId: string, scope: LiftScope) =>
  useQuery({
    queryKey: ['lift', clientId, scope],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/report/client/${clientId}/lift`, {
        query: liftQuery(scope),
        schema: liftReportSchema,
        signal,
        clientId,
      }),
    placeholderData: keepPreviousData,
  });

export const useHoldouts = (clientId: string) =>
  useQuery({
    queryKey: ['holdouts', clientId],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/rest/client/${clientId}/holdouts`, { schema: holdoutListSchema, signal, clientId }),
  });

export function useSetHoldout(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ cadenceId, body }: { cadenceId: number; body: HoldoutBody }) =>
      apiRequest(`/v1/rest/client/${clientId}/holdouts/${cadenceId}`, {
        method: 'PUT',
        body,
        schema: holdoutSchema,
        clientId,
      }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['holdouts', clientId] });
      void queryClient.invalidateQueries({ queryKey: ['lift', clientId] });
    },
  });
}

export async function downloadAssignments(clientId: string, scope: LiftScope): Promise<void> {
  const name = scope.scope === 'client' ? 'client' : `${scope.scope}-${scope.id}`;
  saveBlob(
    await apiBlob(`/v1/report/client/${clientId}/lift/export`, { query: liftQuery(scope), clientId }),
    `holdout-assignments-${name}.csv`,
  );
}
